/**
 * Which provider kinds exist (`memory`, `postgresql`, `inline`, `redis`, …) and the keys each
 * declared, for the config loader. Adapters declare their kind when they register a factory with
 * the adapter registry (`adapters/registry.ts`); kinds that live in other packages are known by
 * package name here, so the loader can import those packages before validating.
 */
import type { ProviderSection } from './config-schema.js';
import type { KnownProviders, ProviderSettingsSpec } from './known-providers.js';

/** Provider kinds implemented by packages that core loads on demand (they call the register functions). */
export const LAZY_ADAPTER_PACKAGES: Readonly<Record<ProviderSection, Readonly<Record<string, string>>>> = {
  databases: { postgresql: '@protean-ts/mikro-orm' },
  brokers: { redis: '@protean-ts/redis', nats: '@protean-ts/nats', rabbitmq: '@protean-ts/rabbitmq' },
};

// Every registered kind, with the settings it declared (undefined: its extra keys pass unchecked).
const declaredKinds: Record<ProviderSection, Map<string, ProviderSettingsSpec | undefined>> = { databases: new Map(), brokers: new Map() };

/** Records that `kind` is registered in `section`; a later declaration replaces an earlier one. */
export function declareProviderKind(section: ProviderSection, kind: string, settings: ProviderSettingsSpec | undefined): void {
  declaredKinds[section].set(kind, settings);
}

/** Every provider kind that can be used now or loaded on demand, and the keys the loaded ones declared, for the config validator. */
export function knownAdapterKinds(): KnownProviders {
  const settings = (section: ProviderSection) => {
    const declared = [...declaredKinds[section]].filter((entry): entry is [string, ProviderSettingsSpec] => entry[1] !== undefined);
    return Object.assign(Object.create(null) as Record<string, ProviderSettingsSpec>, Object.fromEntries(declared));
  };
  return {
    databases: unique([...declaredKinds.databases.keys(), ...Object.keys(LAZY_ADAPTER_PACKAGES.databases)]),
    brokers: unique([...declaredKinds.brokers.keys(), ...Object.keys(LAZY_ADAPTER_PACKAGES.brokers)]),
    settings: { databases: settings('databases'), brokers: settings('brokers') },
  };
}

/**
 * Imports the packages of the named provider kinds that are not registered yet, so their
 * declared keys are known before the configuration is validated. A package that fails to load
 * is left alone here: opening the provider reports it (`AdapterLoadError`) with its cause.
 */
export async function importAdapterPackages(kinds: Partial<Record<ProviderSection, readonly string[]>>): Promise<void> {
  const packages = new Set<string>();
  for (const section of ['databases', 'brokers'] as const) {
    for (const kind of kinds[section] ?? []) {
      if (declaredKinds[section].has(kind) || !Object.hasOwn(LAZY_ADAPTER_PACKAGES[section], kind)) continue;
      packages.add(LAZY_ADAPTER_PACKAGES[section][kind]!);
    }
  }
  for (const packageName of packages) {
    try {
      // A variable specifier keeps TypeScript from pulling the adapter's sources into core's build.
      const specifier: string = packageName;
      await import(specifier);
    } catch {
      // Reported when the provider is opened.
    }
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
