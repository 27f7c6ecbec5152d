/**
 * Vitest globalSetup: builds every publishable package in a staged copy of the workspace and
 * `npm pack`s it into one temp folder, once for all test files, which read the result with
 * `inject('packed')`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildStaged, stageWorkspace } from './stage-workspace.js';
import { publishablePackages } from './workspace-packages.js';
import { run } from './run.js';

export interface PackedPackage {
  name: string;
  version: string;
  tarball: string;
  bytes: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    packed: PackedPackage[];
  }
}

export default async function packWorkspace(project: TestProject): Promise<() => void> {
  const started = performance.now();
  const stage = stageWorkspace(publishablePackages());
  await buildStaged(stage.packages);
  const folder = path.join(stage.root, 'tarballs');
  fs.mkdirSync(folder);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', folder, ...stage.packages.map((pkg) => pkg.staged)], { cwd: stage.root });
  const reports = JSON.parse(stdout) as Array<{ name: string; version: string; filename: string; size: number }>;
  const packed = reports.map((report) => ({
    name: report.name,
    version: report.version,
    tarball: path.join(folder, report.filename),
    bytes: report.size,
  }));
  const sizes = packed.map((p) => `${p.name} ${(p.bytes / 1024).toFixed(1)} kB`).join(', ');
  console.log(`pack-check: built and packed ${packed.length} packages in ${Math.round(performance.now() - started)} ms: ${sizes}`);
  project.provide('packed', packed);
  return () => fs.rmSync(stage.root, { recursive: true, force: true });
}
