/**
 * An undecodable message whose dead letter RabbitMQ refuses (here a policy that makes the DLQ
 * reject every publish) is neither a failed read nor a loop: it goes back to its queue for
 * another try a bounded number of times, then is acked once with one ERROR naming it.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Connection } from 'rabbitmq-client';
import type { ReceivedMessage } from '@protean-ts/core';
import { captureLogsPerTest, RABBITMQ, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';
import { UNDECODABLE_DEAD_LETTER_DELIVERIES } from '../src/rabbitmq-broker.js';
import { createVhost, deleteVhost, eventually, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('dlq-refused') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

/** A vhost policy: queues matching `pattern` take no message; a publish to them is nacked. */
async function rejectEveryPublish(pattern: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:15672/api/policies/${encodeURIComponent(vhost)}/reject-all`, {
    method: 'PUT',
    headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ pattern, definition: { 'max-length': 0, overflow: 'reject-publish' }, 'apply-to': 'queues' }),
  });
  expect(response.ok).toBe(true);
}

describe.skipIf(!up)('rabbitmq broker: a dead letter RabbitMQ refuses', () => {
  const opened: RabbitMQBroker[] = [];
  const logs = captureLogsPerTest();
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });

  it(`acks an undecodable message at its ${UNDECODABLE_DEAD_LETTER_DELIVERIES}th delivery with one ERROR naming it; reads never fail and nothing stays pending`, async () => {
    const broker = new RabbitMQBroker('refused', { provider: 'rabbitmq', uri: rabbitUri(vhost) });
    opened.push(broker);
    const stream = 'refused';
    await broker.ensureGroup(stream, 'g');
    await rejectEveryPublish(`^${broker.names.deadLetterQueue(stream)}$`);
    // Wait until the policy holds: a publish to the DLQ is refused.
    const connection = new Connection(rabbitUri(vhost));
    const publisher = connection.createPublisher({ confirm: true });
    try {
      await eventually('the policy applies', () =>
        publisher.send({ routingKey: broker.names.deadLetterQueue(stream) }, 'probe').then(
          () => false,
          () => true,
        ),
      );
      await publisher.send({ exchange: broker.names.exchange(stream), routingKey: stream, messageId: 'foreign-1' }, 'not json');
    } finally {
      await publisher.close();
      await connection.close();
    }
    const valid = sampleBrokerEnvelope(stream);
    await broker.publish({ stream, envelope: valid });

    const received: ReceivedMessage[] = [];
    const dropped = () => logs.filter((r) => r.level === 'error' && r.msg.startsWith('undecodable message dropped'));
    await eventually('the undecodable message is dropped', async () => {
      received.push(...(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 0 })));
      return dropped().length > 0;
    });
    expect(received.map((m) => m.envelope)).toStrictEqual([valid]);
    await broker.ack(stream, 'g', [received[0]!.id]);

    const retried = logs.filter((r) => r.level === 'error' && r.msg.startsWith('could not dead-letter'));
    expect(retried.map((r) => [r.id, r.deliveryCount])).toEqual(Array.from({ length: UNDECODABLE_DEAD_LETTER_DELIVERIES - 1 }, (_, i) => ['foreign-1', i + 1]));
    expect(dropped().map((r) => [r.id, r.deliveryCount, r.reason, r.bodyStart])).toEqual([
      ['foreign-1', UNDECODABLE_DEAD_LETTER_DELIVERIES, 'the body is not JSON', 'not json'],
    ]);
    expect(await broker.read(stream, 'g', 'c1', { count: 10, blockMs: 200 })).toEqual([]);
    expect(dropped()).toHaveLength(1);
    expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 0, lag: 0, exists: true });
  });
});
