/**
 * The broker-neutral CloudEvents mapping: an envelope goes out with its ids mapped to the core
 * attributes and the rest as extensions, comes back as the same envelope in both modes, and a
 * CloudEvent this domain cannot read is refused with a reason naming the attribute.
 */
import { describe, expect, it } from 'vitest';
import {
  binaryCloudEventToEnvelope,
  BrokerSettingsError,
  envelopeToCloudEvent,
  readMessageFormatSettings,
  structuredCloudEventToEnvelope,
  toBinaryCloudEvent,
  type MessageEnvelope,
} from '../../src/index.js';

const envelope: MessageEnvelope = {
  data: { orderId: 'o-1', lines: [{ sku: 'A', qty: 2 }], note: null },
  metadata: {
    headers: {
      id: 'msg-1',
      time: '2026-11-30T10:00:00.000Z',
      type: 'Shop.OrderPlaced.v2',
      stream: 'shop::order-o-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=1',
    },
    envelope: { specversion: '1.0', checksum: 'abc', position: { key: 'shop::order-o-1', sequence: 12 } },
    domain: {
      fqn: 'Shop.OrderPlaced',
      kind: 'EVENT',
      streamCategory: 'shop::order',
      version: 2,
      sequenceId: '3.0',
      expectedVersion: 2,
      correlationId: 'corr-1',
      causationId: 'cause-1',
      published: true,
    },
    extensions: { tenant: 'eu' },
  },
};

describe('CloudEvents codec', () => {
  it('maps the envelope to the core attributes and the rest to extension attributes', () => {
    expect(envelopeToCloudEvent(envelope)).toEqual({
      specversion: '1.0',
      id: 'msg-1',
      source: '/Shop/shop%3A%3Aorder',
      type: 'Shop.OrderPlaced.v2',
      time: '2026-11-30T10:00:00.000Z',
      subject: 'shop::order-o-1',
      datacontenttype: 'application/json',
      data: envelope.data,
      correlationid: 'corr-1',
      causationid: 'cause-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=1',
      partitionkey: 'shop::order-o-1',
      streamposition: 12,
      proteanfqn: 'Shop.OrderPlaced',
      proteankind: 'EVENT',
      proteancategory: 'shop::order',
      proteanversion: 2,
      proteanchecksum: 'abc',
      proteanseqid: '3.0',
      proteanexpversion: 2,
      proteanpublished: true,
      proteanextensions: '{"tenant":"eu"}',
    });
    expect(envelopeToCloudEvent(envelope, 'https://shop.example.com').source).toBe('https://shop.example.com');
  });

  it('round trip: structured and binary mode give back the envelope it left as (plus the CloudEvent attributes)', () => {
    const event = envelopeToCloudEvent(envelope, 'urn:shop');
    const expected = {
      ...envelope,
      metadata: {
        ...envelope.metadata,
        extensions: { tenant: 'eu', cloudEvent: { source: 'urn:shop', subject: 'shop::order-o-1', datacontenttype: 'application/json' } },
      },
    };
    expect(structuredCloudEventToEnvelope(JSON.stringify(event))).toEqual({ ok: true, envelope: expected });
    const binary = toBinaryCloudEvent(event);
    expect(binary.attributes.streamposition).toBe('12');
    expect(binary.attributes).not.toHaveProperty('data');
    const back = binaryCloudEventToEnvelope(binary.attributes, binary.contentType, binary.body);
    expect(back.ok && back.envelope.metadata.extensions.cloudEvent).toEqual({ source: 'urn:shop', subject: 'shop::order-o-1' });
    expect(back.ok && { ...back.envelope, metadata: { ...back.envelope.metadata, extensions: {} } }).toEqual({
      ...envelope,
      metadata: { ...envelope.metadata, extensions: {} },
    });
  });

  it('reads a foreign CloudEvent: its type and id become the message type and id, subject the stream', () => {
    const decoded = structuredCloudEventToEnvelope(
      JSON.stringify({ specversion: '1.0', id: 'x', source: '/s', type: 'com.x.created', subject: 'x-1', data: { a: 1 } }),
    );
    expect(decoded.ok && decoded.envelope.metadata.headers).toEqual({ id: 'x', time: '', type: 'com.x.created', stream: 'x-1' });
    expect(decoded.ok && decoded.envelope.metadata.domain).toMatchObject({ fqn: 'com.x.created', kind: 'EVENT', version: 1, correlationId: null });
  });

  it.each([
    [{ id: 'x', source: '/s', type: 't' }, 'it has no specversion attribute; only CloudEvents 1.0 ("1.0") can be read'],
    [{ specversion: '0.3', id: 'x', source: '/s', type: 't' }, 'its specversion is "0.3"'],
    [{ specversion: '1.0', source: '/s', type: 't' }, 'it has no "id" attribute'],
    [{ specversion: '1.0', id: 'x', type: 't' }, 'it has no "source" attribute'],
    [{ specversion: '1.0', id: 'x', source: '/s' }, 'it has no "type" attribute'],
    [{ specversion: '1.0', id: 'x', source: '/s', type: 't', time: 'yesterday' }, 'its "time" attribute "yesterday" is no RFC 3339 timestamp'],
    [{ specversion: '1.0', id: 'x', source: '/s', type: 't', datacontenttype: 'application/xml', data: '<a/>' }, 'its datacontenttype is "application/xml"'],
    [{ specversion: '1.0', id: 'x', source: '/s', type: 't', data: [1] }, 'its data is not a JSON object'],
    [{ specversion: '1.0', id: 'x', source: '/s', type: 't', data_base64: 'AA==' }, 'it carries data_base64'],
  ])('refuses %j: %s', (event, problem) => {
    const decoded = structuredCloudEventToEnvelope(JSON.stringify(event));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.problem).toContain(problem);
  });

  it('refuses a structured body that is not JSON, and binary data that is not JSON', () => {
    expect(structuredCloudEventToEnvelope('{nope')).toMatchObject({ ok: false, problem: expect.stringContaining('its body is not a JSON CloudEvent') });
    expect(binaryCloudEventToEnvelope({ specversion: '1.0', id: 'x', source: '/s', type: 't' }, 'application/json', 'nope')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('its body (the data) is not JSON'),
    });
    expect(binaryCloudEventToEnvelope({ specversion: '1.0', id: 'x', source: '/s', type: 't' }, 'text/plain', 'hi')).toMatchObject({
      ok: false,
      problem: 'its content type is "text/plain"; only JSON data can become a domain event',
    });
  });
});

describe('CloudEvents broker settings', () => {
  const read = (settings: Record<string, unknown>) => readMessageFormatSettings('partners', { provider: 'redis', ...settings });

  it('defaults to the envelope; cloudevents defaults to structured mode and the derived source', () => {
    expect(read({})).toEqual({ format: 'envelope', mode: 'structured', source: '' });
    expect(read({ message_format: 'cloudevents' })).toEqual({ format: 'cloudevents', mode: 'structured', source: '' });
    expect(read({ message_format: 'cloudevents', cloudevents_mode: 'binary', cloudevents_source: 'urn:shop' })).toEqual({
      format: 'cloudevents',
      mode: 'binary',
      source: 'urn:shop',
    });
  });

  it.each([
    [{ message_format: 'avro' }, '[brokers.partners] message_format: must be one of "envelope", "cloudevents", got "avro"'],
    [
      { message_format: 'cloudevents', cloudevents_mode: 'batched' },
      '[brokers.partners] cloudevents_mode: must be one of "structured", "binary", got "batched"',
    ],
    [{ cloudevents_mode: 'binary' }, '[brokers.partners] cloudevents_mode: only applies with message_format = "cloudevents"'],
    [{ cloudevents_source: 'urn:x' }, '[brokers.partners] cloudevents_source: only applies with message_format = "cloudevents"'],
    [{ message_format: 'cloudevents', cloudevents_source: ' ' }, '[brokers.partners] cloudevents_source: must be a non-empty URI-reference'],
    [{ message_format: 1 }, '[brokers.partners] message_format: must be a string'],
  ])('refuses %j', (settings, message) => {
    expect(() => read(settings)).toThrow(BrokerSettingsError);
    expect(() => read(settings)).toThrow(message);
  });
});
