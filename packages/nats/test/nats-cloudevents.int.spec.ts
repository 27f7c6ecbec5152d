/**
 * A `message_format = "cloudevents"` NATS broker reading another system's CloudEvents, published
 * by plain @nats-io/jetstream to the stream's subject: structured and binary mode come back as
 * envelopes with the event's id, type and data; a malformed one is dead-lettered with its reason.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { NATS, servicesUp } from '@protean-ts/conformance';
import { NatsBroker } from '../src/index.js';
import { deleteStreams, NATS_URI, uniquePrefix } from './nats-test-support.js';

const up = await servicesUp(NATS);
const prefix = uniquePrefix('cloudevents');
afterAll(() => (up ? deleteStreams(prefix) : undefined));

describe.skipIf(!up)('nats broker reading CloudEvents', () => {
  const opened: NatsBroker[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((broker) => broker.close()));
  });

  it('structured and binary CloudEvents become envelopes; a malformed one goes to the dead letters with its reason', async () => {
    const broker = new NatsBroker('gateway', {
      provider: 'nats',
      uri: NATS_URI,
      stream_prefix: prefix,
      subject_prefix: prefix.slice(0, -1),
      message_format: 'cloudevents',
    });
    opened.push(broker);
    const stream = 'payments';
    await broker.ensureGroup(stream, 'billing');
    const nc = await connect({ servers: new URL(NATS_URI).host });
    try {
      const js = jetstream(nc);
      const subject = broker.namesOf(stream).subject;
      const structured = natsHeaders();
      structured.set('content-type', 'application/cloudevents+json');
      await js.publish(
        subject,
        JSON.stringify({ specversion: '1.0', id: 'pay-1', source: '/gateway', type: 'com.gateway.payment.captured', data: { paymentId: 'p-1' } }),
        {
          headers: structured,
        },
      );
      const binary = natsHeaders();
      for (const [name, value] of Object.entries({
        specversion: '1.0',
        id: 'pay-2',
        source: '/gateway',
        type: 'com.gateway.payment.captured',
        time: '2026-11-30T10:00:00Z',
      })) {
        binary.set(`ce-${name}`, value);
      }
      binary.set('content-type', 'application/json');
      await js.publish(subject, JSON.stringify({ paymentId: 'p-2' }), { headers: binary });
      await js.publish(subject, JSON.stringify({ specversion: '1.0', id: 'pay-3', source: '/gateway', data: {} }));
    } finally {
      await nc.close();
    }
    const read = await broker.read(stream, 'billing', 'c1', { count: 10, blockMs: 2_000 });
    expect(read.map((m) => [m.envelope.metadata.headers.id, m.envelope.metadata.headers.type, m.envelope.data])).toEqual([
      ['pay-1', 'com.gateway.payment.captured', { paymentId: 'p-1' }],
      ['pay-2', 'com.gateway.payment.captured', { paymentId: 'p-2' }],
    ]);
    expect(read[1]!.envelope.metadata.headers.time).toBe('2026-11-30T10:00:00Z');
    await broker.ack(
      stream,
      'billing',
      read.map((m) => m.id),
    );
    const letters = await broker.listDeadLetters(stream);
    expect(letters.map((l) => l.envelope)).toEqual([null]);
    expect(letters[0]!.error).toContain('its CloudEvent is malformed: it has no "type" attribute');
  });
});
