/**
 * Builds every processor a domain needs: one per managed database × target broker (the
 * `outbox.broker` plus each of `outbox.external_brokers`), so the server only starts them.
 */
import {
  outboxEnabled,
  systemClock,
  type AbandonedMessageListener,
  type Broker,
  type Clock,
  type DatabaseProvider,
  type DomainConfig,
  type Logger,
} from '@protean-ts/core';
import type { BackoffSchedule } from './backoff-schedule.js';
import { OutboxConfigError } from './outbox-config.error.js';
import { OutboxProcessor } from './outbox-processor.js';
import { outboxProcessorName } from './outbox-processor-name.js';
import { newWorkerId } from './worker-id.js';

/** What the factory reads from an initialised `Domain`. */
export interface OutboxProcessorHost {
  readonly config: Pick<DomainConfig, 'enable_outbox' | 'server' | 'outbox'>;
  readonly providers: ReadonlyMap<string, DatabaseProvider>;
  readonly brokers: ReadonlyMap<string, Broker>;
  /** `domain.onAbandoned` listeners, read at each abandonment. */
  abandonedListeners?(): readonly AbandonedMessageListener[];
  /** `domain.clock`, read at each use (a test may replace it); the system clock when absent. */
  readonly clock?: Clock;
}

export interface CreateOutboxProcessorsOptions {
  /** Shared by this process's processors; a fresh `<host>-<pid>-<random>` by default. */
  workerId?: string;
  logger?: Logger;
  /** See `OutboxProcessorOptions.abandonListenerTimeoutMs`. */
  abandonListenerTimeoutMs?: number;
  brokerProbe?: BackoffSchedule;
  databaseRetry?: BackoffSchedule;
}

export function createOutboxProcessors(host: OutboxProcessorHost, options: CreateOutboxProcessorsOptions = {}): OutboxProcessor[] {
  const { config } = host;
  if (!outboxEnabled(config)) return [];
  const workerId = options.workerId ?? newWorkerId();
  const targets: { broker: Broker; external: boolean }[] = [{ broker: brokerNamed(host, config.outbox.broker, 'broker'), external: false }];
  config.outbox.external_brokers.forEach((name, i) => {
    // Listing the main broker again would publish every event to it twice.
    if (name !== config.outbox.broker) targets.push({ broker: brokerNamed(host, name, `external_brokers[${i}]`), external: true });
  });
  const processors: OutboxProcessor[] = [];
  for (const [database, provider] of host.providers) {
    if (!provider.managed) continue;
    for (const { broker, external } of targets) {
      processors.push(
        new OutboxProcessor({
          name: outboxProcessorName(database, broker.name, external),
          store: provider.outbox,
          broker,
          config: config.outbox,
          workerId,
          ...(options.logger ? { logger: options.logger } : {}),
          abandonedListeners: () => host.abandonedListeners?.() ?? [],
          clock: { now: () => (host.clock ?? systemClock).now() },
          ...(options.abandonListenerTimeoutMs ? { abandonListenerTimeoutMs: options.abandonListenerTimeoutMs } : {}),
          ...(options.brokerProbe ? { brokerProbe: options.brokerProbe } : {}),
          ...(options.databaseRetry ? { databaseRetry: options.databaseRetry } : {}),
        }),
      );
    }
  }
  return processors;
}

function brokerNamed(host: OutboxProcessorHost, name: string, key: string): Broker {
  const broker = host.brokers.get(name);
  if (!broker) {
    const known = [...host.brokers.keys()].map((b) => `"${b}"`).join(', ') || 'none';
    throw new OutboxConfigError(key, `names broker "${name}", which is not configured (brokers: ${known}); add a [brokers.${name}] table or change the name`);
  }
  return broker;
}
