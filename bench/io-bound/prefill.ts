/**
 * Fills a stream the way an application does: sources raise `Pinged` in units of work, the
 * framework's OutboxProcessor relays them to Redis and is stopped before anything is timed.
 * Each commit raises a slice of every source, so keys interleave in the stream.
 */
import { type Domain } from '@protean-ts/core';
import { createOutboxProcessors } from '@protean-ts/outbox';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { Source } from './io-domain.js';

const EVENTS_PER_COMMIT = 1000;

/** Fills `${prefix}${name}` with `messages` Pinged events over `keys` sources; resolves to `name`. */
export async function prefill(
  domain: Domain,
  redis: Redis,
  pool: pg.Pool,
  options: { keys: number; messages: number; prefix: string; name: string },
): Promise<string> {
  const { keys, messages, prefix } = options;
  const sourceIds: string[] = [];
  await domain.uow(async () => {
    for (let k = 0; k < keys; k++) {
      const source = Source.create({ label: `source ${k + 1} of ${keys}` });
      await domain.repositoryFor(Source).add(source);
      sourceIds.push(source.id);
    }
  });
  const perKey = Math.ceil(messages / keys);
  const perCommitPerKey = Math.max(1, Math.floor(EVENTS_PER_COMMIT / keys));
  let raised = 0;
  for (let start = 0; start < perKey; start += perCommitPerKey) {
    await domain.uow(async () => {
      for (const id of sourceIds) {
        const source = await domain.repositoryFor(Source).get(id);
        for (let n = start; n < Math.min(perKey, start + perCommitPerKey) && raised < messages; n++, raised++) source.ping(n + 1);
        await domain.repositoryFor(Source).add(source);
      }
    });
  }

  const relayed = `${prefix}${domain.registry.streamCategoryOf(Source)}`;
  const processors = createOutboxProcessors(domain, { workerId: 'bench-io-prefill' });
  for (const processor of processors) await processor.start();
  const deadline = Date.now() + 300_000;
  while ((await redis.xlen(relayed)) < messages) {
    if (Date.now() > deadline) throw new Error(`prefill: only ${await redis.xlen(relayed)} of ${messages} messages reached ${relayed} within 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const processor of processors) await processor.stop();
  await redis.rename(relayed, `${prefix}${options.name}`);
  await pool.query('DELETE FROM protean_outbox');
  return options.name;
}
