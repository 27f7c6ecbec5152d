/**
 * collectStatus and DrainWatch on a stream split into partitions (`outbox.partitions = 3`), on
 * PostgreSQL and Redis: a subscription's lag, pending and dead letters are summed over its
 * partition streams, and `--wait-drained` waits for the group on every partition, each against
 * its own mark.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { partitionStreams, type MessageEnvelope } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { collectStatus } from '../src/status/collect-status.js';
import { DrainWatch } from '../src/status/drain-watch.js';
import type { StreamSubscriptionBacklog } from '../src/status/system-status.js';
import { makeShop } from './support/shop-fixture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

const envelope = (id: string, stream: string): MessageEnvelope => ({
  data: { id },
  metadata: {
    headers: { id, time: new Date().toISOString(), type: 'X.Y.v1', stream },
    envelope: { specversion: '1.0' },
    domain: { fqn: 'X.Y', kind: 'EVENT', streamCategory: 'payments-gateway', version: 1 },
    extensions: {},
  },
});

describe.skipIf(!up)('status of a partitioned stream (outbox.partitions = 3) on PostgreSQL and Redis', () => {
  let db: TempDatabase;
  const prefix = uniquePrefix('partstatus');
  beforeAll(async () => {
    db = await createTempDatabase();
  });
  afterAll(async () => {
    const redis = new Redis(REDIS_URI);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db?.drop();
  });

  it('sums lag, pending and dead letters over the partitions, and drains only when every partition is handled', async () => {
    const shop = makeShop('PartStatus', {
      databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
      brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix } },
      event_processing: 'async',
      outbox: { partitions: 3 },
      server: { health: { port: 0 } },
    });
    await shop.domain.init();
    try {
      for (const provider of shop.domain.providers.values())
        await provider.setupSchema(shop.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
      // The subscriber's stream is on the outbox broker: split like the outbox's streams.
      const group = 'GatewayCallbacks';
      const [p0, p1, p2] = partitionStreams('payments-gateway', 3) as [string, string, string];
      const broker = shop.domain.brokers.get('default')!;
      for (const stream of [p0, p1, p2]) await broker.ensureGroup(stream, group);
      const publish = (id: string, stream: string) => broker.publish({ stream, envelope: envelope(id, stream) });
      await publish('a', p0);
      await publish('b', p1);
      await publish('c', p1);
      await publish('d', p2);
      await publish('e', p2);
      await publish('f', p2);
      // Partition 2: one delivered and not acked, one dead-lettered; partition 1: one dead-lettered.
      const [held, failed2] = await broker.read(p2, group, 'c1', { count: 2, blockMs: 0 });
      await broker.deadLetter(p2, group, failed2!, 'boom 2');
      await broker.ack(p2, group, [failed2!.id]);
      const [failed1] = await broker.read(p1, group, 'c1', { count: 1, blockMs: 0 });
      await broker.deadLetter(p1, group, failed1!, 'boom 1');
      await broker.ack(p1, group, [failed1!.id]);

      const status = await collectStatus(shop.domain);
      const backlog = status.subscriptions.find((s) => s.subscription === group) as StreamSubscriptionBacklog;
      expect(backlog).toMatchObject({ stream: 'payments-gateway', partitions: 3, exists: true, lag: 3, pending: 1, deadLetters: 2, consumers: 2 });

      // Nothing in the outbox: the watch marks each partition's head at once.
      const watch = await DrainWatch.begin(shop.domain);
      const waiting = await watch.check();
      expect(waiting.step).toBe('subscriptions');
      const drain = waiting.subscriptions.find((s) => s.subscription === group)!;
      expect(drain).toMatchObject({ stream: 'payments-gateway', partitions: 3, mark: null, settled: false });
      expect(drain.partitionMarks!.map((p) => [p.stream, p.settled])).toEqual([
        [p0, false],
        [p1, false],
        [p2, false],
      ]);

      // Partitions 0 and 1 handled; partition 2 still holds one unacked and one undelivered message.
      for (const stream of [p0, p1]) {
        const messages = await broker.read(stream, group, 'c1', { count: 10, blockMs: 0 });
        await broker.ack(
          stream,
          group,
          messages.map((m) => m.id),
        );
      }
      // Work arriving in partition 0 after the mark is not waited for.
      await publish('later', p0);
      const partly = await watch.check();
      expect(partly.drained).toBe(false);
      expect(partly.left).toEqual([
        expect.stringMatching(
          new RegExp(`^subscription ${group} \\(stream "payments-gateway", 3 partitions\\): not handled up to \\d+-\\d+ on payments-gateway#2 yet$`),
        ),
      ]);

      await broker.ack(p2, group, [held!.id]);
      const [last] = await broker.read(p2, group, 'c1', { count: 10, blockMs: 0 });
      expect(await watch.check()).toMatchObject({ drained: false });
      await broker.ack(p2, group, [last!.id]);
      const drained = await watch.check();
      expect(drained).toMatchObject({ drained: true, step: 'drained', left: [] });
      expect(drained.subscriptions.find((s) => s.subscription === group)!.partitionMarks!.every((p) => p.settled)).toBe(true);

      const after = (await collectStatus(shop.domain)).subscriptions.find((s) => s.subscription === group);
      expect(after).toMatchObject({ partitions: 3, lag: 1, pending: 0, deadLetters: 2 });
    } finally {
      await shop.domain.close();
    }
  });

  it('leaves a subscription on one partition as it was: no partitions field, one mark', async () => {
    const shop = makeShop('OnePart', {
      databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
      brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: `${prefix}one:` } },
      event_processing: 'async',
      server: { health: { port: 0 } },
    });
    await shop.domain.init();
    try {
      const broker = shop.domain.brokers.get('default')!;
      await broker.ensureGroup('payments-gateway', 'GatewayCallbacks');
      await broker.publish({ stream: 'payments-gateway', envelope: envelope('a', 'payments-gateway') });
      const backlog = (await collectStatus(shop.domain)).subscriptions.find((s) => s.subscription === 'GatewayCallbacks');
      expect(backlog).toMatchObject({ lag: 1, pending: 0 });
      expect(backlog).not.toHaveProperty('partitions');
      const drain = (await (await DrainWatch.begin(shop.domain)).check()).subscriptions.find((s) => s.subscription === 'GatewayCallbacks')!;
      expect(drain.mark).toMatch(/^\d+-\d+$/);
      expect(drain).not.toHaveProperty('partitions');
      expect(drain).not.toHaveProperty('partitionMarks');
    } finally {
      await shop.domain.close();
    }
  });
});
