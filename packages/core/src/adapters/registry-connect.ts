/**
 * Opens the infrastructure domain.toml describes: one database provider per
 * `[databases.<name>]` and one broker per `[brokers.<name>]`, each created through the adapter
 * registry and (unless told not to) connected. If anything fails, what was already opened is closed again, so a
 * failed `domain.init()` leaves no pools or sockets behind.
 */
import type { DomainConfig } from '../config/config-types.js';
import type { Logger } from '../logging/logger.js';
import type { Broker } from '../ports/broker.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import { brokerFactory, databaseProviderFactory } from './registry.js';

export interface Infrastructure {
  providers: Map<string, DatabaseProvider>;
  brokers: Map<string, Broker>;
}

export async function openInfrastructure(
  config: Pick<DomainConfig, 'databases' | 'brokers'>,
  log: Logger,
  options: { connect: boolean } = { connect: true },
): Promise<Infrastructure> {
  const opened: Infrastructure = { providers: new Map(), brokers: new Map() };
  try {
    for (const [name, settings] of Object.entries(config.databases)) {
      const provider = (await databaseProviderFactory(name, settings))(name, settings);
      opened.providers.set(name, provider);
      if (!options.connect) continue;
      await provider.connect();
      log.debug('database connected', { database: name, provider: settings.provider, uri: settings.database_uri });
    }
    for (const [name, settings] of Object.entries(config.brokers)) {
      const broker = (await brokerFactory(name, settings))(name, settings);
      opened.brokers.set(name, broker);
      if (!options.connect) continue;
      await broker.connect();
      log.debug('broker connected', { broker: name, provider: settings.provider, uri: settings.uri });
    }
    return opened;
  } catch (error) {
    await closeInfrastructure(opened, log);
    throw error;
  }
}

/** Closes brokers, then databases; a failure to close one is logged and the rest still close. */
export async function closeInfrastructure(infrastructure: Infrastructure, log: Logger): Promise<void> {
  for (const [name, broker] of infrastructure.brokers) {
    try {
      await broker.close();
    } catch (error) {
      log.warn('broker did not close cleanly', { broker: name, error });
    }
  }
  for (const [name, provider] of infrastructure.providers) {
    try {
      await provider.close();
    } catch (error) {
      log.warn('database did not close cleanly', { database: name, error });
    }
  }
  infrastructure.brokers.clear();
  infrastructure.providers.clear();
}
