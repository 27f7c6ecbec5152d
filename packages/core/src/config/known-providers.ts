/**
 * Provider names the validator accepts, per section, and the keys each provider declares beyond
 * its section's common keys. Core's own adapters are listed here; adapter packages declare
 * theirs when they register (`registerDatabaseProvider(kind, factory, { settings })`), so the
 * lists stay open without core importing any adapter.
 */
import type { KeySpec, ProviderSection } from './config-schema.js';

/** What one provider accepts in its `[databases.<name>]` / `[brokers.<name>]` table. */
export interface ProviderSettingsSpec {
  /** Keys beyond the section's common ones (`provider`, `database_uri`, `uri`, …), with their types and bounds. */
  keys: Readonly<Record<string, KeySpec>>;
  /** Keys (common or own) the provider cannot work without, e.g. `database_uri`. */
  required?: readonly string[];
  /** Common keys the provider does not read (`database_uri` for `memory`): setting one is an error. */
  unused?: readonly string[];
  /**
   * Rules across keys that the per-key types cannot say (a key that only applies with another),
   * checked when the configuration is loaded as the adapter checks them when it is built.
   */
  rules?: (table: Readonly<Record<string, unknown>>) => readonly { key: string; problem: string }[];
}

export interface KnownProviders {
  databases: readonly string[];
  brokers: readonly string[];
  /**
   * Declared keys per provider. A known provider without an entry (its package is not loaded,
   * or it registered without `settings`) has its extra keys passed through unchecked, with a warning.
   */
  settings: Readonly<Record<ProviderSection, Readonly<Record<string, ProviderSettingsSpec>>>>;
}

/** What core's own providers declare (they register the same objects). */
export const MEMORY_DATABASE_SETTINGS: ProviderSettingsSpec = { keys: {}, unused: ['database_uri'] };
export const INLINE_BROKER_SETTINGS: ProviderSettingsSpec = {
  // InlineBroker reads the same bounds (INLINE_MAXLEN_LIMIT).
  keys: { maxlen: { kind: 'integer', min: 0, max: 1_000_000_000 } },
};

export const BUILTIN_PROVIDERS: KnownProviders = {
  databases: ['memory'],
  brokers: ['inline'],
  settings: { databases: { memory: MEMORY_DATABASE_SETTINGS }, brokers: { inline: INLINE_BROKER_SETTINGS } },
};

/** Built-ins plus any extra names and settings, without duplicates (later settings win). */
export function withBuiltins(...extras: Array<Partial<KnownProviders> | undefined>): KnownProviders {
  const join = (section: ProviderSection) => [...new Set([BUILTIN_PROVIDERS[section], ...extras.map((e) => e?.[section] ?? [])].flat())];
  const settings = (section: ProviderSection) =>
    Object.assign(
      Object.create(null) as Record<string, ProviderSettingsSpec>,
      BUILTIN_PROVIDERS.settings[section],
      ...extras.map((e) => e?.settings?.[section] ?? {}),
    );
  return {
    databases: join('databases'),
    brokers: join('brokers'),
    settings: { databases: settings('databases'), brokers: settings('brokers') },
  };
}

/** The declared settings of `provider`, or undefined when it declared none. */
export function providerSettings(providers: KnownProviders, section: ProviderSection, provider: string): ProviderSettingsSpec | undefined {
  const table = providers.settings[section];
  return Object.hasOwn(table, provider) ? table[provider] : undefined;
}
