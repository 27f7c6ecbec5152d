/**
 * What the conformance suite does not cover: RabbitMQ's own delivery limit dead-lettering a
 * message whose consumers keep dying, an unroutable publish failing, bodies that are not
 * envelopes, deliveries racing a blocked read's end, and errors while RabbitMQ is unreachable.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Connection } from 'rabbitmq-client';
import { BrokerOperationError, BrokerUnavailableError, configureLogging, type LogRecord } from '@protean-ts/core';
import { RABBITMQ, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';
import { createVhost, deleteVhost, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('delivery') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

describe.skipIf(!up)('rabbitmq broker deliveries', () => {
  const opened: RabbitMQBroker[] = [];
  const open = (settings: Record<string, unknown> = {}) => {
    const broker = new RabbitMQBroker('events', { provider: 'rabbitmq', uri: rabbitUri(vhost), ...settings });
    opened.push(broker);
    return broker;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });
  const raw = async <T>(work: (connection: Connection) => Promise<T>): Promise<T> => {
    const connection = new Connection(rabbitUri(vhost));
    try {
      return await work(connection);
    } finally {
      await connection.close();
    }
  };

  it('dead-letters a message whose consumers stopped delivery_limit times, so a poison message never loops', async () => {
    const stream = 'poison';
    await open({ delivery_limit: 2 }).ensureGroup(stream, 'g');
    const envelope = sampleBrokerEnvelope(stream, 1);
    const id = await open({ delivery_limit: 2 }).publish({ stream, envelope });
    const counts: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      // A consumer that reads the message and dies without an ack (its connection closes).
      const victim = open({ delivery_limit: 2 });
      const got = await victim.read(stream, 'g', 'dies', { count: 1, blockMs: 500 });
      counts.push(...got.map((m) => m.deliveryCount));
      await victim.close();
    }
    expect(counts).toEqual([1, 2, 3]);
    const broker = open({ delivery_limit: 2 });
    const [letter, ...rest] = await broker.listDeadLetters(stream);
    expect(rest).toEqual([]);
    expect(letter).toMatchObject({ originalId: id, stream, group: 'g', envelope });
    expect(letter!.error).toContain('delivery_limit');
    expect(letter!.deliveryCount).toBeGreaterThanOrEqual(3);
    expect(await broker.replayDeadLetters(stream)).toBe(1);
    expect((await broker.read(stream, 'g', 'c', { count: 1, blockMs: 1_000 })).map((m) => [m.envelope, m.deliveryCount])).toEqual([[envelope, 1]]);
  });

  it('names the setting when a queue was declared with another delivery_limit', async () => {
    const stream = 'changed-limit';
    await open({ delivery_limit: 2 }).ensureGroup(stream, 'g');
    const error = await open({ delivery_limit: 5 })
      .read(stream, 'g', 'c', { count: 1, blockMs: 0 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/delivery_limit/);
    expect((error as Error).message).toContain(`"changed-limit@g"`);
  });

  it('fails a publish RabbitMQ returns as unroutable instead of dropping it', async () => {
    const broker = open();
    const stream = 'unroutable';
    await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 1) });
    // Without its holding queue (and no group), a stream has nowhere to put a message.
    await raw(async (c) => c.queueDelete({ queue: broker.names.holdingQueue(stream) }));
    const error = await broker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 2) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerOperationError);
    expect((error as Error).message).toMatch(/returned the message as unroutable \(312 NO_ROUTE\)/);
  });

  it('dead-letters a body that is not an envelope on its own and returns the rest of the batch', async () => {
    const broker = open();
    const stream = 'foreign';
    await broker.ensureGroup(stream, 'g');
    await raw(async (c) => {
      const publisher = c.createPublisher({ confirm: true });
      await publisher.send({ exchange: broker.names.exchange(stream), messageId: 'foreign-1' }, Buffer.from('payment p-0'));
      await publisher.close();
    });
    const envelope = sampleBrokerEnvelope(stream, 1);
    await broker.publish({ stream, envelope });
    const got = await broker.read(stream, 'g', 'c', { count: 10, blockMs: 0 });
    expect(got.map((m) => m.envelope)).toEqual([envelope]);
    const [letter] = await broker.listDeadLetters(stream);
    expect(letter).toMatchObject({ originalId: 'foreign-1', envelope: null, rawFields: ['body', 'payment p-0'] });
    expect(letter!.error).toContain('the body is not JSON');
    expect(await broker.replayDeadLetters(stream)).toBe(0);
  });

  // Regression: rabbitmq-client hands deliveries to the consumer callback with setImmediate, so
  // one that arrived just before cancel-ok reached the callback after the read had returned and
  // stayed unacked on the channel, invisible to the subscription, until the process died.
  it('never strands a delivery that races the end of a blocked read', async () => {
    const broker = open();
    const stream = 'race';
    await broker.ensureGroup(stream, 'g');
    const total = 400;
    const seen: string[] = [];
    const readers = Array.from({ length: 8 }, async (_, r) => {
      while (seen.length < total) {
        const batch = await broker.read(stream, 'g', `c${r}`, { count: 3, blockMs: 50 });
        seen.push(...batch.map((m) => m.id));
        await broker.ack(
          stream,
          'g',
          batch.map((m) => m.id),
        );
      }
    });
    const publisher = open();
    for (let i = 0; i < total; i += 20)
      await publisher.publishBatch(Array.from({ length: 20 }, (_, j) => ({ stream, envelope: sampleBrokerEnvelope(stream, i + j) })));
    await Promise.race([Promise.all(readers), new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${seen.length} of ${total} read`)), 20_000))]);
    expect(new Set(seen).size).toBe(total);
    expect(await broker.groupStatus(stream, 'g')).toEqual({ pending: 0, lag: 0, exists: true, pendingLocalOnly: true });
  });

  it('fails fast with BrokerUnavailableError naming the masked URI when nothing listens, and logs no password', async () => {
    const logs: LogRecord[] = [];
    const previous = configureLogging({ level: 'debug', sink: (_line, record) => logs.push(record) });
    try {
      const broker = new RabbitMQBroker('events', { provider: 'rabbitmq', uri: 'amqp://app:s3cr%40t-pw@127.0.0.1:1/x', connect_timeout_ms: 300 });
      opened.push(broker);
      const error = await broker.publish({ stream: 's', envelope: sampleBrokerEnvelope('s') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerUnavailableError);
      expect((error as Error).message).toContain('amqp://app:***@127.0.0.1:1/x');
      expect(await broker.ping()).toBe(false);
      const info = await broker.info();
      expect(info.connected).toBe(false);
      expect(JSON.stringify([(error as Error).message, info, logs])).not.toContain('s3cr');
    } finally {
      configureLogging(previous);
    }
  });
});
