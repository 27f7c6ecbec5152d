/**
 * Provider names the validator accepts, per kind. Built-ins are listed here; adapter packages
 * (or the runtime's adapter registry) pass more through `loadConfig({ providers })`, so the
 * lists stay open without core importing any adapter.
 */

export interface KnownProviders {
  databases: readonly string[];
  brokers: readonly string[];
  eventStores: readonly string[];
}

export const BUILTIN_PROVIDERS: KnownProviders = {
  databases: ['memory', 'postgresql'],
  brokers: ['inline', 'redis'],
  eventStores: ['memory'],
};

/** Keys a provider cannot work without; checked here so the error names the file and key. */
export const REQUIRED_PROVIDER_KEYS: Record<'databases' | 'brokers', Record<string, readonly string[]>> = {
  databases: { postgresql: ['database_uri'] },
  brokers: { redis: ['uri'] },
};

/** Built-ins plus any extra names, without duplicates. */
export function withBuiltins(extra: Partial<KnownProviders> = {}): KnownProviders {
  const join = (a: readonly string[], b: readonly string[] = []) => [...new Set([...a, ...b])];
  return {
    databases: join(BUILTIN_PROVIDERS.databases, extra.databases),
    brokers: join(BUILTIN_PROVIDERS.brokers, extra.brokers),
    eventStores: join(BUILTIN_PROVIDERS.eventStores, extra.eventStores),
  };
}
