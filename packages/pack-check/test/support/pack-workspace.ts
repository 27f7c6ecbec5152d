/**
 * Vitest globalSetup: `npm pack`s every publishable package into one temp folder, once for all
 * test files, which read the result with `inject('packed')`. It runs after the repository's
 * build-packages globalSetup (vitest.config.ts), so the packages' dist/ folders are the ones
 * `turbo run build` just wrote, before any test file started; no file reads them half-written.
 * (It used to build a staged copy of the workspace a second time: 29 s before any test ran.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
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
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-tarballs-')));
  const packages = publishablePackages();
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', folder, ...packages.map((pkg) => pkg.folder)], { cwd: folder });
  const reports = JSON.parse(stdout) as Array<{ name: string; version: string; filename: string; size: number }>;
  const packed = reports.map((report) => ({
    name: report.name,
    version: report.version,
    tarball: path.join(folder, report.filename),
    bytes: report.size,
  }));
  const sizes = packed.map((p) => `${p.name} ${(p.bytes / 1024).toFixed(1)} kB`).join(', ');
  console.log(`pack-check: packed ${packed.length} packages in ${Math.round(performance.now() - started)} ms: ${sizes}`);
  project.provide('packed', packed);
  return () => fs.rmSync(folder, { recursive: true, force: true });
}
