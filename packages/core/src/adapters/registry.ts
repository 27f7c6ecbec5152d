/**
 * Where adapters register the provider kinds they implement (`memory`, `postgresql`, `inline`,
 * `redis`, …). Core never imports an adapter package statically: built-in kinds that live in
 * other packages are imported on first use, and those packages register themselves on import.
 */
import { AdapterLoadError } from '../errors/adapter-load.error.js';
import { UnknownProviderError } from '../errors/unknown-provider.error.js';
import type { BrokerFactory, BrokerSettings } from '../ports/broker.js';
import type { DatabaseProviderFactory, DatabaseSettings } from '../ports/database-provider.js';
import type { KnownProviders, ProviderSettingsSpec } from '../config/known-providers.js';

type Section = 'databases' | 'brokers';

const databaseFactories = new Map<string, DatabaseProviderFactory>();
const brokerFactories = new Map<string, BrokerFactory>();
const declaredSettings: Record<Section, Map<string, ProviderSettingsSpec>> = { databases: new Map(), brokers: new Map() };

export interface RegisterProviderOptions {
  /**
   * The keys the provider reads from its table beyond the section's common ones, so the config
   * loader warns about typos and checks types and bounds naming the file. Without it the
   * provider's extra keys pass through unchecked (with a warning).
   */
  settings?: ProviderSettingsSpec;
}

/** Provider kinds implemented by packages that core loads on demand (they call the register functions). */
export const LAZY_ADAPTER_PACKAGES: Readonly<Record<Section, Readonly<Record<string, string>>>> = {
  databases: { postgresql: '@protean-ts/mikro-orm' },
  brokers: { redis: '@protean-ts/redis', nats: '@protean-ts/nats', rabbitmq: '@protean-ts/rabbitmq' },
};

/** Makes `provider = "<kind>"` usable in `[databases.<name>]`; a later registration replaces an earlier one. */
export function registerDatabaseProvider(kind: string, factory: DatabaseProviderFactory, options: RegisterProviderOptions = {}): void {
  assertKind(kind, 'registerDatabaseProvider');
  databaseFactories.set(kind, factory);
  declare('databases', kind, options);
}

/** Makes `provider = "<kind>"` usable in `[brokers.<name>]`. */
export function registerBroker(kind: string, factory: BrokerFactory, options: RegisterProviderOptions = {}): void {
  assertKind(kind, 'registerBroker');
  brokerFactories.set(kind, factory);
  declare('brokers', kind, options);
}

/** Every provider kind that can be used now or loaded on demand, and the keys the loaded ones declared, for the config validator. */
export function knownAdapterKinds(): KnownProviders {
  const settings = (section: Section) =>
    Object.assign(Object.create(null) as Record<string, ProviderSettingsSpec>, Object.fromEntries(declaredSettings[section]));
  return {
    databases: unique([...databaseFactories.keys(), ...Object.keys(LAZY_ADAPTER_PACKAGES.databases)]),
    brokers: unique([...brokerFactories.keys(), ...Object.keys(LAZY_ADAPTER_PACKAGES.brokers)]),
    settings: { databases: settings('databases'), brokers: settings('brokers') },
  };
}

/**
 * Imports the packages of the named provider kinds that are not registered yet, so their
 * declared keys are known before the configuration is validated. A package that fails to load
 * is left alone here: opening the provider reports it (`AdapterLoadError`) with its cause.
 */
export async function importAdapterPackages(kinds: Partial<Record<Section, readonly string[]>>): Promise<void> {
  const factories: Record<Section, Map<string, unknown>> = { databases: databaseFactories, brokers: brokerFactories };
  const packages = new Set<string>();
  for (const section of ['databases', 'brokers'] as const) {
    for (const kind of kinds[section] ?? []) {
      if (factories[section].has(kind) || !Object.hasOwn(LAZY_ADAPTER_PACKAGES[section], kind)) continue;
      packages.add(LAZY_ADAPTER_PACKAGES[section][kind]!);
    }
  }
  for (const packageName of packages) {
    try {
      const specifier: string = packageName;
      await import(specifier);
    } catch {
      // Reported when the provider is opened.
    }
  }
}

/** The factory for `[databases.<entry>]`, importing its adapter package first when needed. */
export async function databaseProviderFactory(entry: string, settings: DatabaseSettings): Promise<DatabaseProviderFactory> {
  return resolve('databases', entry, settings.provider, databaseFactories);
}

/** The factory for `[brokers.<entry>]`, importing its adapter package first when needed. */
export async function brokerFactory(entry: string, settings: BrokerSettings): Promise<BrokerFactory> {
  return resolve('brokers', entry, settings.provider, brokerFactories);
}

async function resolve<F>(section: Section, entry: string, kind: string, factories: Map<string, F>): Promise<F> {
  const ready = factories.get(kind);
  if (ready) return ready;
  const packageName = Object.hasOwn(LAZY_ADAPTER_PACKAGES[section], kind) ? LAZY_ADAPTER_PACKAGES[section][kind] : undefined;
  if (!packageName) {
    const known = unique([...factories.keys(), ...Object.keys(LAZY_ADAPTER_PACKAGES[section])]).sort();
    throw new UnknownProviderError(section, entry, kind, known);
  }
  try {
    // A variable specifier keeps TypeScript from pulling the adapter's sources into core's build.
    const specifier: string = packageName;
    await import(specifier);
  } catch (error) {
    throw new AdapterLoadError(section, entry, kind, packageName, { cause: error });
  }
  const loaded = factories.get(kind);
  if (!loaded) {
    throw new AdapterLoadError(section, entry, kind, packageName, {
      cause: new Error(`${packageName} was imported but did not register the "${kind}" provider`),
    });
  }
  return loaded;
}

function assertKind(kind: string, fn: string): void {
  if (typeof kind !== 'string' || kind.trim() === '') throw new TypeError(`${fn}(kind, factory): kind must be a non-empty string such as "postgresql"`);
}

function declare(section: Section, kind: string, options: RegisterProviderOptions): void {
  if (options.settings) declaredSettings[section].set(kind, options.settings);
  else declaredSettings[section].delete(kind);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
