/**
 * Vitest globalSetup: builds every publishable package (turbo, so an unchanged package is a cache
 * hit) and `npm pack`s it into one temp folder, once for all test files, which read the result
 * with `inject('packed')`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { publishablePackages, REPOSITORY_ROOT } from './workspace-packages.js';
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
  const packages = publishablePackages();
  const started = performance.now();
  const filters = packages.flatMap((pkg) => ['--filter', pkg.name]);
  await run('npx', ['turbo', 'run', 'build', ...filters, '--output-logs=errors-only'], { cwd: REPOSITORY_ROOT });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', folder, ...packages.map((pkg) => pkg.folder)], { cwd: REPOSITORY_ROOT });
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
  return () => fs.rmSync(folder, { recursive: true, force: true });
}
