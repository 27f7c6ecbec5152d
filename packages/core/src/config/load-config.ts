/**
 * Loads domain.toml into a fully defaulted, validated `DomainConfig`. Layers, last wins:
 * defaults ← file ← `[<PROTEAN_ENV>]` table ← programmatic overrides. `${VAR}` placeholders in
 * the file are filled from the environment. Every problem is reported at once as a ConfigError.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { ConfigError, type ConfigProblem } from './config-error.js';
import type { DomainConfig } from './config-types.js';
import { deepMerge } from './deep-merge.js';
import { DATABASE_ENTRY_DEFAULTS, defaultConfig } from './defaults.js';
import { discoverConfigFile } from './discover-config-file.js';
import { applyEnvironmentOverlay } from './environment-overlay.js';
import { withBuiltins, type KnownProviders } from './known-providers.js';
import { maskText } from './mask-secrets.js';
import { importAdapterPackages, knownAdapterKinds } from './provider-kinds.js';
import { isPlainObject, substituteEnv } from './substitute-env.js';
import { validateConfig } from './validate-config.js';

/** Partial configuration, as in domain.toml (snake_case), for `overrides`. */
export type ConfigOverrides = { [key: string]: unknown };

export interface LoadConfigOptions {
  /** An explicit file; it must exist. Skips discovery. */
  configPath?: string;
  /** Where discovery starts (the domain's folder, a file in it, or a `file:` URL). Default: cwd. */
  searchFrom?: string | URL;
  /** Variables for `${VAR}` and PROTEAN_ENV. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Merged over everything else, e.g. from tests or `domain.init({ config })`. */
  overrides?: ConfigOverrides;
  /** Provider names (and their declared keys) beyond the built-ins and the adapter registry's. */
  providers?: Partial<KnownProviders>;
}

export interface LoadedConfig {
  config: DomainConfig;
  /** The file read, or null when none was found and defaults apply. */
  file: string | null;
  warnings: string[];
  /** The PROTEAN_ENV in effect, or null. */
  environment: string | null;
  /** The environment tables the file defines (`[production]`, `[staging]`), whether in effect or not. */
  environments: string[];
}

export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const file = resolveFile(options);
  const read = file ? readConfigFile(file, { env }) : null;
  const environment = read?.environment ?? (env.PROTEAN_ENV?.trim() || null);
  // Warnings are masked like errors: they name keys, and a key may be a pasted URI.
  const inFile = (warning: string) => maskText(file ? `${path.basename(file)}: ${warning}` : warning);
  const warnings = (read?.warnings ?? []).map(inFile);
  if (!file && environment) warnings.push(inFile(`PROTEAN_ENV=${environment} but no domain.toml was found; using defaults`));

  const explicit = deepMerge<Record<string, unknown>>({}, read?.values ?? {}, options.overrides ?? {});
  const merged = deepMerge<Record<string, unknown>>({ ...defaultConfig() }, explicit);
  fillDatabaseEntryDefaults(merged);
  const providers = withBuiltins(knownAdapterKinds(), options.providers);
  const result = validateConfig(merged, { providers, coercible: read?.coercible, explicit });
  warnings.push(...result.warnings.map(inFile));
  if (result.problems.length) {
    const overridden = Object.keys(options.overrides ?? {}).length > 0;
    throw new ConfigError(result.problems, file, { withOverrides: overridden });
  }
  return { config: result.config, file, warnings, environment, environments: read?.environments ?? [] };
}

/**
 * `loadConfig` after importing the adapter packages the configuration names (`postgresql`,
 * `redis`, …), so the keys those adapters declare are checked too. What `domain.init()` and
 * `protean-ts config check` use.
 */
export async function loadConfigWithAdapters(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const file = resolveFile(options);
  const values = file ? readConfigFile(file, { env }).values : {};
  const explicit = deepMerge<Record<string, unknown>>({}, values, options.overrides ?? {});
  const named = (section: 'databases' | 'brokers') => {
    const tables = explicit[section];
    if (!isPlainObject(tables)) return [];
    return Object.values(tables).flatMap((entry) => (isPlainObject(entry) && typeof entry.provider === 'string' ? [entry.provider] : []));
  };
  // A dedicated event-store database (`event_store.database_uri`) needs its provider's adapter too.
  const store = explicit.event_store;
  const storeProvider = isPlainObject(store) && typeof store.database_uri === 'string' && typeof store.provider === 'string' ? [store.provider] : [];
  await importAdapterPackages({ databases: [...named('databases'), ...storeProvider], brokers: named('brokers') });
  return loadConfig(options);
}

export interface ConfigFileValues {
  /** The file's values with the active environment table merged in and `${VAR}` filled; not validated or defaulted. */
  values: Record<string, unknown>;
  /** Key paths whose value was one whole placeholder (validation may coerce them). */
  coercible: Set<string>;
  warnings: string[];
  environment: string | null;
  /** Names of the environment tables the file defines. */
  environments: string[];
}

/**
 * The first half of `loadConfig`: parse, overlay `[<PROTEAN_ENV>]`, substitute. Useful where a
 * single key is needed before the rest can be validated (the CLI reading `module`).
 */
export function readConfigFile(file: string, options: { env?: Record<string, string | undefined> } = {}): ConfigFileValues {
  const env = options.env ?? process.env;
  const environment = env.PROTEAN_ENV?.trim() || null;
  const overlay = applyEnvironmentOverlay(readToml(file), environment ?? undefined);
  const substituted = substituteEnv(overlay.merged, env);
  if (substituted.problems.length) throw new ConfigError(substituted.problems, file);
  return {
    values: substituted.value as Record<string, unknown>,
    coercible: substituted.wholeValuePaths,
    warnings: overlay.warnings,
    environment,
    environments: overlay.environments,
  };
}

/**
 * One top-level key of a file, after the environment overlay and with `${VAR}` filled in that
 * key only: reading `module` must not fail because a database password is not exported.
 */
export function readConfigKey(file: string, key: string, options: { env?: Record<string, string | undefined> } = {}): unknown {
  const env = options.env ?? process.env;
  const overlay = applyEnvironmentOverlay(readToml(file), env.PROTEAN_ENV?.trim() || undefined);
  if (!Object.hasOwn(overlay.merged, key)) return undefined;
  const substituted = substituteEnv({ [key]: overlay.merged[key] }, env);
  if (substituted.problems.length) throw new ConfigError(substituted.problems, file);
  return (substituted.value as Record<string, unknown>)[key];
}

function resolveFile(options: LoadConfigOptions): string | null {
  if (options.configPath) {
    const file = path.resolve(options.configPath);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      throw new ConfigError([{ path: '', message: `config file ${file} does not exist; check --config / configPath` }], file);
    }
    return file;
  }
  return discoverConfigFile(options.searchFrom ?? process.cwd());
}

function readToml(file: string): Record<string, unknown> {
  const text = fs.readFileSync(file, 'utf8');
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      // No `cause`: the parser's message quotes the offending line, which may hold a secret.
      const problem: ConfigProblem = {
        path: '',
        line: error.line,
        message: `TOML syntax error at ${file}:${error.line}:${error.column}: ${firstLine(error.message)}`,
      };
      throw new ConfigError([problem], file);
    }
    // Anything else the parser throws (a RangeError on absurd nesting) is still the file's fault.
    throw new ConfigError(
      [{ path: '', message: `cannot be read as TOML: ${error instanceof Error ? error.name : 'error'}; simplify the file (nesting too deep?)` }],
      file,
    );
  }
}

/** `managed` and `pool_size` apply to every named database, not only `default`. */
function fillDatabaseEntryDefaults(config: Record<string, unknown>): void {
  const databases = config.databases;
  if (!isPlainObject(databases)) return;
  for (const entry of Object.values(databases)) {
    if (!isPlainObject(entry)) continue;
    for (const [key, value] of Object.entries(DATABASE_ENTRY_DEFAULTS)) if (!Object.hasOwn(entry, key)) entry[key] = value;
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
