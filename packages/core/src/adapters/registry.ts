/**
 * Where adapters register the provider kinds they implement (`memory`, `postgresql`, `inline`,
 * `redis`, …). Core never imports an adapter package statically: built-in kinds that live in
 * other packages are imported on first use, and those packages register themselves on import.
 */
import { AdapterLoadError } from '../errors/adapter-load.error.js';
import { UnknownProviderError } from '../errors/unknown-provider.error.js';
import type { BrokerSettings, DatabaseSettings } from '../config/config-types.js';
import type { BrokerFactory } from '../ports/broker.js';
import type { DatabaseProviderFactory } from '../ports/database-provider.js';
import type { ProviderSection } from '../config/config-schema.js';
import type { ProviderSettingsSpec } from '../config/known-providers.js';
import { declareProviderKind, LAZY_ADAPTER_PACKAGES } from '../config/provider-kinds.js';

const databaseFactories = new Map<string, DatabaseProviderFactory>();
const brokerFactories = new Map<string, BrokerFactory>();

export interface RegisterProviderOptions {
  /**
   * The keys the provider reads from its table beyond the section's common ones, so the config
   * loader warns about typos and checks types and bounds naming the file. Without it the
   * provider's extra keys pass through unchecked (with a warning).
   */
  settings?: ProviderSettingsSpec;
}

/** Makes `provider = "<kind>"` usable in `[databases.<name>]`; a later registration replaces an earlier one. */
export function registerDatabaseProvider(kind: string, factory: DatabaseProviderFactory, options: RegisterProviderOptions = {}): void {
  assertKind(kind, 'registerDatabaseProvider');
  databaseFactories.set(kind, factory);
  declareProviderKind('databases', kind, options.settings);
}

/** Makes `provider = "<kind>"` usable in `[brokers.<name>]`. */
export function registerBroker(kind: string, factory: BrokerFactory, options: RegisterProviderOptions = {}): void {
  assertKind(kind, 'registerBroker');
  brokerFactories.set(kind, factory);
  declareProviderKind('brokers', kind, options.settings);
}

/** The factory for `[databases.<entry>]`, importing its adapter package first when needed. */
export async function databaseProviderFactory(entry: string, settings: DatabaseSettings): Promise<DatabaseProviderFactory> {
  return resolve('databases', entry, settings.provider, databaseFactories);
}

/** The factory for `[brokers.<entry>]`, importing its adapter package first when needed. */
export async function brokerFactory(entry: string, settings: BrokerSettings): Promise<BrokerFactory> {
  return resolve('brokers', entry, settings.provider, brokerFactories);
}

async function resolve<F>(section: ProviderSection, entry: string, kind: string, factories: Map<string, F>): Promise<F> {
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

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
