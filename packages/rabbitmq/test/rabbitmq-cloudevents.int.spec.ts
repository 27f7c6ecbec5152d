/**
 * A `message_format = "cloudevents"` RabbitMQ broker reading another system's CloudEvents, sent
 * by plain rabbitmq-client to the stream's exchange: structured and binary mode come back as
 * envelopes with the event's id, type and data; a malformed one is dead-lettered with its reason.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Connection, type Envelope } from 'rabbitmq-client';
import { RABBITMQ, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';
import { createVhost, deleteVhost, rabbitUri } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ);
const vhost = up ? await createVhost('cloudevents') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

describe.skipIf(!up)('rabbitmq broker reading CloudEvents', () => {
  const opened: RabbitMQBroker[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((broker) => broker.close()));
  });

  async function sendAsAnotherSystem(broker: RabbitMQBroker, stream: string, messages: { properties: Envelope; body: string }[]): Promise<void> {
    const connection = new Connection(rabbitUri(vhost));
    const publisher = connection.createPublisher({ confirm: true });
    try {
      for (const { properties, body } of messages)
        await publisher.send({ exchange: broker.names.exchange(stream), routingKey: stream, ...properties }, Buffer.from(body));
    } finally {
      await publisher.close();
      await connection.close();
    }
  }

  it('structured and binary CloudEvents become envelopes; a malformed one goes to the dead letters with its reason', async () => {
    const broker = new RabbitMQBroker('gateway', { provider: 'rabbitmq', uri: rabbitUri(vhost), message_format: 'cloudevents' });
    opened.push(broker);
    const stream = 'payments';
    await broker.ensureGroup(stream, 'billing');
    await sendAsAnotherSystem(broker, stream, [
      {
        properties: { contentType: 'application/cloudevents+json', messageId: 'm-1' },
        body: JSON.stringify({
          specversion: '1.0',
          id: 'pay-1',
          source: '/gateway',
          type: 'com.gateway.payment.captured',
          subject: 'inv-1',
          data: { paymentId: 'p-1' },
        }),
      },
      {
        properties: {
          contentType: 'application/json',
          messageId: 'm-2',
          headers: {
            cloudEvents_specversion: '1.0',
            cloudEvents_id: 'pay-2',
            cloudEvents_source: '/gateway',
            cloudEvents_type: 'com.gateway.payment.captured',
            'cloudEvents:merchant': 'm-9',
          },
        },
        body: JSON.stringify({ paymentId: 'p-2' }),
      },
      {
        properties: { contentType: 'application/cloudevents+json', messageId: 'm-3' },
        body: JSON.stringify({ specversion: '1.0', id: 'pay-3', type: 'com.gateway.payment.captured', data: {} }),
      },
    ]);
    const read = [];
    for (let i = 0; i < 20 && read.length < 2; i++) read.push(...(await broker.read(stream, 'billing', 'c1', { count: 10, blockMs: 200 })));
    expect(read.map((m) => [m.envelope.metadata.headers.id, m.envelope.metadata.headers.type, m.envelope.data])).toEqual([
      ['pay-1', 'com.gateway.payment.captured', { paymentId: 'p-1' }],
      ['pay-2', 'com.gateway.payment.captured', { paymentId: 'p-2' }],
    ]);
    expect(read[0]!.envelope.metadata.headers.stream).toBe('inv-1');
    expect(read[1]!.envelope.metadata.extensions.cloudEvent).toEqual({ source: '/gateway', merchant: 'm-9' });
    await broker.ack(
      stream,
      'billing',
      read.map((m) => m.id),
    );
    const letters = await broker.listDeadLetters(stream);
    expect(letters.map((l) => [l.originalId, l.envelope])).toEqual([['m-3', null]]);
    expect(letters[0]!.error).toContain('its CloudEvent is malformed: it has no "source" attribute');
  });

  it('its own published events come back as the envelope they left as, in binary mode too', async () => {
    const broker = new RabbitMQBroker('partners', {
      provider: 'rabbitmq',
      uri: rabbitUri(vhost),
      name_prefix: 'bin.',
      message_format: 'cloudevents',
      cloudevents_mode: 'binary',
    });
    opened.push(broker);
    await broker.ensureGroup('shop::order', 'g');
    const envelope = {
      data: { orderId: 'o-1' },
      metadata: {
        headers: { id: 'e-1', time: '2026-11-30T10:00:00.000Z', type: 'Shop.OrderPlaced.v1', stream: 'shop::order-o-1' },
        envelope: { specversion: '1.0' as const },
        domain: { fqn: 'Shop.OrderPlaced', kind: 'EVENT' as const, streamCategory: 'shop::order', version: 1, correlationId: 'c-1', causationId: null },
        extensions: {},
      },
    };
    await broker.publish({ stream: 'shop::order', envelope });
    const [message] = await broker.read('shop::order', 'g', 'c1', { count: 1, blockMs: 2_000 });
    const { cloudEvent, ...own } = message!.envelope.metadata.extensions;
    expect({ ...message!.envelope, metadata: { ...message!.envelope.metadata, extensions: own } }).toEqual(envelope);
    expect(cloudEvent).toEqual({ source: '/Shop/shop%3A%3Aorder', subject: 'shop::order-o-1' });
  });
});
