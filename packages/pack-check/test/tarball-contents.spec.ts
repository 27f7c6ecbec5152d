/**
 * What each tarball holds: README and LICENSE, every file its package.json points at (exports
 * under every condition, bin, types), and every source its source maps name, so a stack trace
 * mapped through them names a file that exists. No test files.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';

interface Manifest {
  name: string;
  license?: string;
  exports?: Record<string, Record<string, string> | string>;
  bin?: Record<string, string> | string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function tarballFiles(tarball: string): Set<string> {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  return new Set(
    listing
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.replace(/^package\//, '')),
  );
}

function tarballFile(tarball: string, file: string): string {
  return execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

describe.each(inject('packed').map((p) => [p.name, p] as const))('%s tarball', (_name, packed) => {
  const files = tarballFiles(packed.tarball);
  const manifest = JSON.parse(tarballFile(packed.tarball, 'package.json')) as Manifest;

  it('carries its README and the MIT LICENSE it declares', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(manifest.license).toBe('MIT');
    expect(tarballFile(packed.tarball, 'LICENSE')).toMatch(/^MIT License/);
  });

  it('has every file its exports and bin point at, under every condition', () => {
    const targets: string[] = [];
    for (const [subpath, entry] of Object.entries(manifest.exports ?? {})) {
      for (const target of typeof entry === 'string' ? [entry] : Object.values(entry)) targets.push(`${subpath} -> ${target}`);
    }
    const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
    for (const bin of bins) targets.push(`bin -> ${bin}`);
    const missing = targets.filter((t) => !files.has(path.posix.normalize(t.split(' -> ')[1]!)));
    expect(missing).toEqual([]);
  });

  it('ships the sources its source maps name, and no tests', () => {
    const maps = [...files].filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(tarballFile(packed.tarball, map)) as { sources: string[] };
      for (const source of sources) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(map), source));
        if (!files.has(resolved)) missing.push(`${map} -> ${source}`);
      }
    }
    expect(missing).toEqual([]);
    expect([...files].filter((file) => /(^|\/)test\/|\.(test|spec)\.ts$/.test(file))).toEqual([]);
  });

  it('pins exact dependency versions, and takes @protean-ts/core as a peer unless it is core', () => {
    const ranges = Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(([, range]) => !EXACT.test(range));
    expect(ranges).toEqual([]);
    if (manifest.name !== '@protean-ts/core') {
      expect(manifest.dependencies ?? {}).not.toHaveProperty('@protean-ts/core');
      expect(manifest.peerDependencies ?? {}).toHaveProperty('@protean-ts/core', packed.version);
    }
  });
});
