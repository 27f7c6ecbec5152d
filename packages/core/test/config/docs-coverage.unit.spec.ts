/**
 * docs/configuration.md must document every configuration key with its current default: the
 * test walks the defaults object and the schema, so a new key or a changed default fails here
 * until the page is updated.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA, defaultConfig, type KeySpec } from '../../src/index.js';

const PAGE = fs.readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8');

/** `databases.default.x` is documented as `databases.<name>.x`. */
function documentedPath(path: string): string {
  return path.replace(/^(databases|brokers)\.[^.]+\./, '$1.<name>.');
}

function leafDefaults(value: unknown, at = ''): Array<[string, unknown]> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([key, child]) => leafDefaults(child, at ? `${at}.${key}` : key));
  }
  return [[at, value]];
}

function schemaLeaves(spec: KeySpec, at = ''): Array<[string, KeySpec]> {
  if (spec.kind === 'table') return Object.entries(spec.keys).flatMap(([key, child]) => schemaLeaves(child, at ? `${at}.${key}` : key));
  if (spec.kind === 'namedTables') return schemaLeaves(spec.entry, `${at}.<name>`);
  return [[at, spec]];
}

/** The table row documenting `path`, or undefined. */
function rowFor(path: string): string | undefined {
  return PAGE.split('\n').find((line) => line.startsWith(`| \`${path}\` |`));
}

describe('docs/configuration.md', () => {
  const defaults = leafDefaults(defaultConfig());

  it('walks a non-trivial set of keys', () => {
    expect(defaults.length).toBeGreaterThan(30);
  });

  it.each(defaults)('documents %s with its default', (path, value) => {
    const row = rowFor(documentedPath(path));
    expect(row, `no table row for \`${documentedPath(path)}\``).toBeDefined();
    expect(row).toContain(`\`${JSON.stringify(value)}\``);
  });

  it.each(schemaLeaves(CONFIG_SCHEMA))('documents schema key %s', (path, spec) => {
    const row = rowFor(path);
    expect(row, `no table row for \`${path}\``).toBeDefined();
    // Bounds are part of the contract: the row states them exactly as the schema enforces them.
    if (spec.kind === 'integer' || spec.kind === 'number') expect(row).toContain(`${spec.kind} ${spec.min}..${spec.max}`);
    if (spec.kind === 'refused') expect(row).toContain('refused');
  });
});
