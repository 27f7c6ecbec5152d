/**
 * Before forking several workers, checks that every database and broker can be shared between
 * processes. Brokers answer through their DISTRIBUTED capability; databases by provider kind,
 * since the database port has no capability flags and `memory` is the only in-process one.
 */
import type { Broker, DatabaseSettings } from '@protean-ts/core';
import { NotDistributableError, type InProcessSetting } from '../errors/not-distributable.error.js';

const IN_PROCESS_DATABASES = new Set(['memory']);

export function assertDistributable(workers: number, databases: Readonly<Record<string, DatabaseSettings>>, brokers: Iterable<Broker>): void {
  if (workers <= 1) return;
  const problems: InProcessSetting[] = [];
  for (const [name, settings] of Object.entries(databases)) {
    if (IN_PROCESS_DATABASES.has(settings.provider)) {
      problems.push({ key: `[databases.${name}] provider`, provider: settings.provider, fix: 'set provider = "postgresql" with a database_uri' });
    }
  }
  for (const broker of brokers) {
    if (!broker.has('DISTRIBUTED')) {
      problems.push({ key: `[brokers.${broker.name}] provider`, provider: broker.provider, fix: 'set provider = "redis" with a uri' });
    }
  }
  if (problems.length) throw new NotDistributableError(workers, problems);
}
