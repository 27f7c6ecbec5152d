/**
 * Property-based: thousands of broken domain.toml files (wrong types, unknown and misspelt keys at
 * every level, keys named like inherited properties, huge / negative / non-finite numbers,
 * secrets in values of every shape, broken TOML, hostile PROTEAN_ENV). For every one, loading
 * either succeeds — every key written is then either resolved unchanged or warned about by
 * name — or throws a ConfigError naming the file and, per problem, the key (or the line of a
 * syntax error); never another exception, never a hang, and the secret never appears in a
 * message, a warning or the printed configuration.
 * Run by broken-configs.unit.spec.ts (a fixed seed, the fast tier) and
 * broken-configs.property.load.spec.ts (a random seed, more runs); fast-check prints a failing
 * seed, and FC_SEED=<seed> repeats it (property-settings.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA, ConfigError, formatConfig, loadConfig, TOP_LEVEL_KEYS, type KeySpec } from '../../src/index.js';
import { propertyRun, type PropertyTier } from '@protean-ts/conformance';
import { tempProject } from './config-fixture.js';

const folder = tempProject();
const file = path.join(folder, 'domain.toml');

/** Every leaf of the schema as a path (`databases.<name>` entries under a few names). */
function schemaPaths(spec: KeySpec, at: string[] = []): string[][] {
  if (spec.kind === 'table') return Object.entries(spec.keys).flatMap(([k, child]) => schemaPaths(child, [...at, k]));
  if (spec.kind === 'namedTables') return ['default', 'reporting', 'constructor'].flatMap((name) => schemaPaths(spec.entry, [...at, name]));
  return [at];
}
const KNOWN_PATHS = schemaPaths(CONFIG_SCHEMA);
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** A secret unlikely to occur by chance, made of characters every masking rule must cover. */
const secretArb = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/).map((s) => `Zq7${s}`);

/** The secret inside a value of one of the shapes people paste into configuration files. */
const secretValueArb = (secret: string): fc.Arbitrary<unknown> => {
  const text = fc.constantFrom(
    `postgresql://app:${secret}@db:5432/shop`,
    `redis://:${secret}@cache:6379/0`,
    `rediss://default:${secret}@cache`,
    `postgresql://app:p@${secret}@db/shop`,
    `host=db password=${secret} user=app`,
    `host=db password='${secret} x\\'y' user=app`,
    `host=db password="${secret}"`,
    `postgresql://db/shop?sslmode=require&password=${secret}`,
    `connecting to redis://u:${secret}@h/0 now`,
    `{"password": "${secret}"}`,
    `db_password = ${secret}`,
  );
  return fc.oneof(
    text,
    text.map((t) => [t]),
    text.map((t) => [1, [t]]),
    fc.constantFrom({ password: secret }, { api_key: secret }, { nested: { token: secret } }, { credentials: [secret] }),
    text.map((t) => ({ uri: t })),
    text.map((t) => ({ database_uri: t, provider: 'postgresql' })),
  );
};

/** A wrong, odd or extreme value of any type (no secret). */
const oddValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(1e308, -1e308, Infinity, -Infinity, NaN, -0, 0, -1, 2 ** 31, 2 ** 53 + 2, 0.5, 65536, 1),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(
    '',
    ' ',
    'memory',
    'postgresql',
    'redis',
    'inline',
    'stream',
    'event_store',
    'http://0.0.0.0',
    '::1',
    'localhost',
    '${UNSET_VAR}',
    '${SET_VAR}',
  ),
  fc.string({ maxLength: 12 }),
  fc.constant([]),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 3 }),
  fc.constant({}),
  fc.dictionary(fc.constantFrom('provider', 'uri', 'x', '__proto__', 'toString'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxKeys: 3 }),
);

/** A key path: a real one, one with a misspelt segment, or one with a strange segment at any level. */
const pathArb: fc.Arbitrary<string[]> = fc.oneof(
  fc.constantFrom(...KNOWN_PATHS),
  fc.tuple(fc.constantFrom(...KNOWN_PATHS), fc.nat(), fc.nat()).map(([p, i, c]) => {
    const at = i % p.length;
    const word = p[at]!;
    const pos = c % (word.length + 1);
    return [...p.slice(0, at), word.slice(0, pos) + word.slice(pos + 1) || 'x', ...p.slice(at + 1)];
  }),
  fc
    .tuple(fc.constantFrom(...KNOWN_PATHS), fc.nat(), fc.constantFrom(...PROTOTYPE_NAMES, 'pool_siz', 'provide', 'provder', 'manage', 'event_store'))
    .map(([p, i, name]) => {
      const at = i % (p.length + 1);
      return [...p.slice(0, at), name];
    }),
);

type Write = { path: string[]; value: unknown };

/** Sets `value` at `path` in plain tables, unless an earlier write put a non-table on the way. */
function setAt(root: Record<string, unknown>, write: Write): boolean {
  let node = root;
  for (const key of write.path.slice(0, -1)) {
    if (!Object.hasOwn(node, key)) Object.defineProperty(node, key, { value: {}, enumerable: true, writable: true, configurable: true });
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return false;
    node = next as Record<string, unknown>;
  }
  const last = write.path.at(-1)!;
  if (Object.hasOwn(node, last)) return false;
  Object.defineProperty(node, last, { value: write.value, enumerable: true, writable: true, configurable: true });
  return true;
}

function getAt(root: unknown, keys: string[]): unknown {
  let node = root;
  for (const key of keys) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const caseArb = secretArb.chain((secret) =>
  fc.record({
    secret: fc.constant(secret),
    writes: fc.array(fc.record({ path: pathArb, value: fc.oneof(oddValueArb, secretValueArb(secret)) }), { minLength: 1, maxLength: 6 }),
    environment: fc.constantFrom(undefined, ...PROTOTYPE_NAMES, 'staging'),
    /** Damage to the TOML text: none, a cut at a fraction of its length, or a stray character. */
    damage: fc.oneof(fc.constant(null), fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('', '"', '[', '=', '\n[x', '{', "'"))),
  }),
);

function render(writes: Write[], damage: [number, string] | null): { text: string; applied: Write[] } {
  const root: Record<string, unknown> = {};
  const applied = writes.filter((w) => setAt(root, w));
  let text: string;
  try {
    text = stringify(root);
  } catch {
    text = 'server = { broken'; // a value smol-toml cannot write: broken TOML is a case too
  }
  if (damage) {
    const at = Math.floor(damage[0] * text.length);
    text = text.slice(0, at) + damage[1] + (damage[1] === '' ? '' : text.slice(at));
  }
  return { text, applied };
}

export function describeBrokenConfigProperties(tier: PropertyTier): void {
  // 3,000 runs took up to 19 s on a busy machine: the fast tier runs fewer, the load tier many more.
  const run = propertyRun(tier, { seed: 20260110, fastRuns: 1_000, loadRuns: 10_000 });
  describe('broken configurations (property)', () => {
    it(
      `load or fail with a ConfigError naming key and file, never leaking the secret (seed ${run.seed})`,
      () => {
        fc.assert(
          fc.property(caseArb, ({ secret, writes, environment, damage }) => {
            const { text, applied } = render(writes, damage);
            fs.writeFileSync(file, text);
            const env: Record<string, string> = { SET_VAR: `redis://:${secret}@h` };
            if (environment !== undefined) env.PROTEAN_ENV = environment;
            const started = performance.now();
            let outcome: unknown;
            try {
              const loaded = loadConfig({ configPath: file, env });
              const printed = `${formatConfig(loaded.config, 'toml')}${formatConfig(loaded.config, 'json')}${loaded.warnings.join('\n')}`;
              expect(printed).not.toContain(secret);
              if (!damage) expectEveryWriteResolvedOrWarned(applied, loaded.config, loaded.warnings);
              outcome = loaded;
            } catch (error) {
              outcome = error;
              if (!(error instanceof ConfigError)) throw new Error(`not a ConfigError: ${String(error)}\n--- file:\n${text}`);
              expect(error.file).toBe(file);
              expect(error.message).toContain(file);
              for (const problem of error.problems) expect(problem.path !== '' || problem.line !== undefined || problem.message.includes(file)).toBe(true);
              expect(`${error.message}${JSON.stringify(error.problems)}${String(error.cause ?? '')}`).not.toContain(secret);
            }
            expect(outcome).toBeDefined();
            expect(performance.now() - started).toBeLessThan(2000);
          }),
          { ...run, verbose: 1 },
        );
      },
      Math.max(120_000, run.numRuns * 40),
    );
  });
}

/**
 * When loading succeeds, no write was silently changed or dropped: a known key holds the value
 * written (numbers and booleans as written; `${VAR}` values substituted), anything else is
 * named by a warning. A table under an unknown top-level name is an environment table (documented;
 * warned when its name is close to a key), not a key of the configuration.
 */
function expectEveryWriteResolvedOrWarned(applied: Write[], config: unknown, warnings: string[]): void {
  for (const write of applied) {
    if (write.path.length > 1 && !TOP_LEVEL_KEYS.includes(write.path[0]!)) continue;
    const dotted = write.path.join('.');
    // The key itself or the unknown table holding it is named by a warning.
    const prefixes = write.path.map((_k, i) => write.path.slice(0, i + 1).join('.'));
    const warned = warnings.some((w) => prefixes.some((p) => w.includes(`\`${p}\``)));
    if (warned) continue;
    const resolved = getAt(config, write.path);
    if (typeof write.value === 'string' && write.value.includes('${')) continue; // substituted
    if (write.value !== null && typeof write.value === 'object' && !Array.isArray(write.value)) continue; // a table: its keys are checked one by one
    // -0 is written to TOML as 0 (smol-toml), so compare zeros without their sign.
    const written = write.value === 0 ? 0 : write.value;
    expect(resolved, `${dotted} was written as ${JSON.stringify(write.value)} but resolved to ${JSON.stringify(resolved)} without a warning`).toEqual(written);
  }
}
