/**
 * Real-service plumbing for the outbox tests: a throw-away database per file, a unique Redis
 * stream prefix per file, and reading back what reached a stream through the broker's own API.
 */
import { randomBytes } from 'node:crypto';
import type { Broker, MessageEnvelope, NewOutboxRow } from '@protean-ts/core';
import { createTemporaryDatabase, type TemporaryDatabase } from '@protean-ts/conformance/fixtures';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import { RedisBroker } from '@protean-ts/redis';

export const REDIS_URI = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export type TempDatabase = TemporaryDatabase;

/** A database of the file's own (`<prefix>_<random>`), through the shared helper. */
export function createTempDatabase(prefix: string): Promise<TempDatabase> {
  return createTemporaryDatabase({ label: prefix });
}

/** A provider on `uri` with its outbox table created. */
export async function outboxDatabase(uri: string, name = 'default', poolSize = 5): Promise<PostgresProvider> {
  const provider = new PostgresProvider(name, { provider: 'postgresql', database_uri: uri, managed: true, pool_size: poolSize });
  await provider.setupOutbox();
  return provider;
}

export function streamPrefix(label: string): string {
  return `test:${label}:${randomBytes(4).toString('hex')}:`;
}

export function redisBroker(name: string, prefix: string, uri = REDIS_URI): RedisBroker {
  return new RedisBroker(name, { provider: 'redis', uri, stream_prefix: prefix, connect_timeout_ms: 1000 });
}

export async function appendCommitted(provider: PostgresProvider, rows: readonly NewOutboxRow[]): Promise<void> {
  const tx = await provider.begin();
  try {
    await provider.outbox.append(tx, rows);
    await tx.commit();
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}

/** Everything on `stream`, oldest first, read through a consumer group of its own. */
export async function drainStream(broker: Broker, stream: string): Promise<MessageEnvelope[]> {
  const group = `check-${randomBytes(3).toString('hex')}`;
  await broker.ensureGroup(stream, group);
  const out: MessageEnvelope[] = [];
  for (;;) {
    const batch = await broker.read(stream, group, 'checker', { count: 5000, blockMs: 0 });
    if (batch.length === 0) return out;
    out.push(...batch.map((m) => m.envelope));
  }
}
