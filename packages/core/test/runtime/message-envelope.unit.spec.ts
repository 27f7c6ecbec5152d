import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseCommand, BaseEvent, BaseValueObject, Domain, field } from '../../src/index.js';
import { canonicalJson } from '../../src/messages/canonical-json.js';
import { deserializeMessage } from '../../src/messages/deserialize-message.js';
import { envelopeChecksum } from '../../src/messages/envelope-checksum.js';
import { serializeMessage } from '../../src/messages/serialize-message.js';
import { stampCommand } from '../../src/elements/stamp-command.js';
import { stripEnvelope } from '../../src/messages/strip-envelope.js';
import { ChecksumMismatchError } from '../../src/errors/checksum-mismatch.error.js';
import { UnknownMessageTypeError } from '../../src/errors/unknown-message-type.error.js';
import { MalformedEnvelopeError } from '../../src/errors/malformed-envelope.error.js';
import { MessageWithoutMetadataError } from '../../src/errors/message-without-metadata.error.js';

const domain = new Domain('Shop');

@domain.valueObject()
class Money extends BaseValueObject {
  @field.decimal({ required: true }) amount!: number;
  @field.string({ required: true }) currency!: string;
}

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.datetime() placedAt?: Date;
}

@domain.event({ partOf: Order, published: true })
class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string() customer?: string;
  @field.datetime() placedAt?: Date;
  @field.valueObject(() => Money) total?: Money;
  @field.list({ of: 'string' }) tags?: string[];
  @field.dict() extra?: Record<string, unknown>;
}

@domain.command({ partOf: Order })
class CancelOrder extends BaseCommand {
  @field.identifier({ required: true }) orderId!: string;
  @field.string() reason?: string;
}

@domain.command({ partOf: Order })
class PlaceOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

function raisedEvent(): OrderPlaced {
  const order = Order.create({ customer: 'Ann', placedAt: new Date('2024-05-01T10:00:00Z') });
  return order.raise(
    OrderPlaced.create({
      orderId: order.id,
      customer: 'Ann ✓ «ü»',
      placedAt: order.placedAt,
      total: Money.create({ amount: 12.5, currency: 'EUR' }),
      tags: ['b', 'a'],
      extra: { z: 1, a: { y: [1, 2], b: null } },
    }),
  );
}

describe('canonicalJson', () => {
  it('sorts keys at every level, drops undefined, writes dates as ISO and no whitespace', () => {
    const value = { b: 1, a: { d: [3, { y: 1, x: undefined }], c: new Date('2024-01-02T03:04:05.678Z') }, u: undefined };
    expect(canonicalJson(value)).toBe('{"a":{"c":"2024-01-02T03:04:05.678Z","d":[3,{"y":1}]},"b":1}');
  });

  it('gives the same text for objects that differ only in key order', () => {
    expect(canonicalJson({ x: 1, y: { b: 2, a: 1 } })).toBe(canonicalJson({ y: { a: 1, b: 2 }, x: 1 }));
  });

  it('writes non-finite numbers as null and refuses cycles', () => {
    expect(canonicalJson([NaN, Infinity, -0])).toBe('[null,null,0]');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });

  it('quotes keys as JSON does, the first time and when the same keys come again', () => {
    const value = { 'a"b': 1, 'line\nbreak': { 'a"b': 2 }, é: 3 };
    const expected = '{"a\\"b":1,"line\\nbreak":{"a\\"b":2},"é":3}';
    expect(canonicalJson(value)).toBe(expected);
    expect(canonicalJson(value)).toBe(expected);
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('stays exact for documents with more distinct keys than it remembers quoted', () => {
    const value = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`key "${i}"`, i]));
    const text = canonicalJson(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(canonicalJson(value)).toBe(text);
  });
});

describe('serializeMessage / deserializeMessage', () => {
  it('round-trips an event byte for byte', () => {
    const event = raisedEvent();
    const envelope = serializeMessage(event);
    const restored = deserializeMessage<OrderPlaced>(domain, envelope);
    expect(restored).toBeInstanceOf(OrderPlaced);
    expect(restored.customer).toBe('Ann ✓ «ü»');
    expect(restored.total).toBeInstanceOf(Money);
    expect(restored._metadata).toEqual(event._metadata && envelope.metadata);
    const again = serializeMessage(restored);
    expect(canonicalJson(again)).toBe(canonicalJson(envelope));
    expect(JSON.stringify(again)).toBe(JSON.stringify(envelope));
  });

  it('survives a trip through JSON text with reordered keys (as a database or broker may return it)', () => {
    const envelope = serializeMessage(raisedEvent());
    const reordered = JSON.parse(
      JSON.stringify(envelope, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)),
    );
    expect(Object.keys(reordered.metadata)).not.toEqual(Object.keys(envelope.metadata));
    const restored = deserializeMessage<OrderPlaced>(domain, reordered);
    expect(canonicalJson(serializeMessage(restored))).toBe(canonicalJson(envelope));
  });

  it('writes headers, domain metadata and a sha256 checksum of the content', () => {
    const event = raisedEvent();
    const envelope = serializeMessage(event);
    expect(envelope.metadata.headers).toMatchObject({ id: event._metadata!.headers.id, type: 'Shop.OrderPlaced.v1', stream: `shop::order-${event.orderId}` });
    expect(envelope.metadata.domain).toMatchObject({ fqn: 'Shop.OrderPlaced', kind: 'EVENT', streamCategory: 'shop::order', version: 1, published: true });
    expect(envelope.metadata.envelope.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(envelope.metadata.envelope.checksum).toBe(envelopeChecksum(envelope));
    expect(envelope.data.placedAt).toBe('2024-05-01T10:00:00.000Z');
  });

  it('keeps the envelope info keys sorted with the checksum in its place, whatever other keys a received envelope carried', () => {
    expect(Object.keys(serializeMessage(raisedEvent()).metadata.envelope)).toEqual(['checksum', 'specversion']);
    const received = serializeMessage(raisedEvent());
    const info = received.metadata.envelope as unknown as Record<string, unknown>;
    delete info.checksum;
    Object.assign(info, { attempt: 2, zone: 'eu' });
    info.checksum = envelopeChecksum(received);
    const again = serializeMessage(deserializeMessage<OrderPlaced>(domain, received));
    expect(Object.keys(again.metadata.envelope)).toEqual(['attempt', 'checksum', 'specversion', 'zone']);
    expect(again.metadata.envelope.checksum).toBe(envelopeChecksum(again));
  });

  it('refuses an envelope whose data was altered, naming the message id and type', () => {
    const envelope = serializeMessage(raisedEvent());
    envelope.data.customer = 'Mallory';
    const attempt = () => deserializeMessage(domain, envelope);
    expect(attempt).toThrow(ChecksumMismatchError);
    expect(attempt).toThrow(envelope.metadata.headers.id);
    expect(attempt).toThrow('Shop.OrderPlaced.v1');
  });

  it('refuses an envelope whose metadata was altered', () => {
    const envelope = serializeMessage(raisedEvent());
    envelope.metadata.domain.correlationId = 'forged';
    expect(() => deserializeMessage(domain, envelope)).toThrow(ChecksumMismatchError);
  });

  it('accepts an envelope without a checksum unless one is required', () => {
    const envelope = stripEnvelope(serializeMessage(raisedEvent()));
    expect(deserializeMessage(domain, envelope)).toBeInstanceOf(OrderPlaced);
    expect(() => deserializeMessage(domain, envelope, { requireChecksum: true })).toThrow(ChecksumMismatchError);
  });

  it('refuses an unknown message type with the registered types listed', () => {
    const envelope = serializeMessage(raisedEvent());
    envelope.metadata.headers.type = 'Shop.OrderPlaced.v9';
    envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
    const attempt = () => deserializeMessage(domain, envelope);
    expect(attempt).toThrow(UnknownMessageTypeError);
    expect(attempt).toThrow(/Shop\.OrderPlaced\.v9.*registered: Shop\.CancelOrder\.v1, Shop\.OrderPlaced\.v1, Shop\.PlaceOrder\.v1/);
  });

  it('refuses things that are not envelopes', () => {
    expect(() => deserializeMessage(domain, null as never)).toThrow(MalformedEnvelopeError);
    expect(() => deserializeMessage(domain, { data: {}, metadata: { headers: { id: 'x' } } } as never)).toThrow(/headers.type/);
  });

  it('refuses to serialize a message that was never raised or processed', () => {
    expect(() => serializeMessage(CancelOrder.create({ orderId: 'o-1' }))).toThrow(MessageWithoutMetadataError);
  });
});

describe('stripEnvelope', () => {
  it('drops expected version, sequence and checksum and keeps headers, routing data and extensions', () => {
    const envelope = serializeMessage(raisedEvent());
    envelope.metadata.extensions = { tenant: 't-1' };
    const stripped = stripEnvelope(envelope);
    expect(stripped.metadata.domain).not.toHaveProperty('expectedVersion');
    expect(stripped.metadata.domain).not.toHaveProperty('sequenceId');
    expect(stripped.metadata.envelope).toEqual({ specversion: '1.0' });
    expect(stripped.metadata.headers).toEqual(envelope.metadata.headers);
    expect(stripped.metadata.domain).toMatchObject({ fqn: 'Shop.OrderPlaced', kind: 'EVENT', streamCategory: 'shop::order', version: 1, published: true });
    expect(stripped.metadata.extensions).toEqual({ tenant: 't-1' });
    expect(stripped.data).toEqual(envelope.data);
    expect(envelope.metadata.domain.expectedVersion).toBe(-1);
  });
});

describe('stampCommand', () => {
  it('streams a command by its identifier field and correlates it with itself at the top level', () => {
    const command = stampCommand(domain.registry, CancelOrder.create({ orderId: 'o-7' }), undefined);
    const meta = command._metadata!;
    expect(meta.headers.stream).toBe('shop::order:command-o-7');
    expect(meta.domain).toMatchObject({ kind: 'COMMAND', streamCategory: 'shop::order', correlationId: meta.headers.id, causationId: null });
  });

  it('uses the message id when the command has no identifier and keeps an incoming correlation', () => {
    const command = stampCommand(domain.registry, PlaceOrder.create({ customer: 'Ann' }), { correlationId: 'corr-1', causationId: 'evt-1' });
    const meta = command._metadata!;
    expect(meta.headers.stream).toBe(`shop::order:command-${meta.headers.id}`);
    expect(meta.domain).toMatchObject({ correlationId: 'corr-1', causationId: 'evt-1' });
    const envelope = serializeMessage(command);
    expect(deserializeMessage<PlaceOrder>(domain, envelope).customer).toBe('Ann');
  });
});
