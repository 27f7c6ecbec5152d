/**
 * Fills a stream the way an application does: sources raise `SourceTicked` in units of work
 * (outbox rows committed with them), then the framework's OutboxProcessor relays them to Redis
 * and is stopped before anything is timed. Each phase's stream is renamed to a name of its own.
 */
import { type Domain } from '@protean-ts/core';
import { createOutboxProcessors } from '@protean-ts/outbox';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { Counter, Source } from './hop-domain.js';

/** Events raised per unit of work: each commits a slice of every source, so keys interleave. */
const EVENTS_PER_COMMIT = 1000;

export interface Prefilled {
  /** The stream name subscriptions are given (the broker adds its prefix). */
  stream: string;
  sourceIds: string[];
}

export async function prefill(
  domain: Domain,
  redis: Redis,
  pool: pg.Pool,
  options: { keys: number; messages: number; prefix: string; rawCounter: string },
): Promise<Prefilled> {
  const { keys, messages, prefix } = options;
  const sourceIds: string[] = [];
  await domain.uow(async () => {
    for (let k = 0; k < keys; k++) {
      const source = Source.create({ label: `source ${k + 1} of ${keys}` });
      await domain.repositoryFor(Source).add(source);
      await domain.repositoryFor(Counter).add(Counter.create({ sourceId: source.id, count: 0 }));
      sourceIds.push(source.id);
    }
  });
  // The raw side's counters: the same rows in its own table.
  await pool.query(`INSERT INTO ${options.rawCounter} SELECT * FROM counter WHERE source_id = ANY($1::text[])`, [sourceIds]);

  const perKey = Math.ceil(messages / keys);
  const perCommitPerKey = Math.max(1, Math.floor(EVENTS_PER_COMMIT / keys));
  let raised = 0;
  for (let start = 0; start < perKey; start += perCommitPerKey) {
    await domain.uow(async () => {
      for (const id of sourceIds) {
        const source = await domain.repositoryFor(Source).get(id);
        for (let n = start; n < Math.min(perKey, start + perCommitPerKey) && raised < messages; n++, raised++) source.tick(n + 1);
        await domain.repositoryFor(Source).add(source);
      }
    });
  }

  const relayed = `${prefix}hop::source`;
  const processors = createOutboxProcessors(domain, { workerId: 'bench-hop-prefill' });
  for (const processor of processors) await processor.start();
  const deadline = Date.now() + 300_000;
  while ((await redis.xlen(relayed)) < messages) {
    if (Date.now() > deadline) throw new Error(`prefill: only ${await redis.xlen(relayed)} of ${messages} messages reached ${relayed}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const processor of processors) await processor.stop();
  const stream = `hop::source:k${keys}`;
  await redis.rename(relayed, `${prefix}${stream}`);
  // Published rows go: each side then writes into an outbox table holding only its own rows.
  await pool.query('DELETE FROM protean_outbox');
  return { stream, sourceIds };
}
