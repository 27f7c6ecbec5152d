/**
 * The AsyncAPI document of a broker with `message_format = "cloudevents"` describes what that
 * broker really sends: a CloudEvent (structured: the whole event as application/cloudevents+json;
 * binary: `data` as the payload and the attributes as prefixed headers), not the protean-ts
 * envelope. Checked by encoding an envelope with core's own CloudEvents codec and validating it
 * against the document's schemas, and by parsing the document with @asyncapi/parser.
 */
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Parser } from '@asyncapi/parser';
import { BaseAggregate, BaseEvent, Domain, envelopeToCloudEvent, field, toBinaryCloudEvent, type MessageEnvelope } from '@protean-ts/core';
import { asyncApiDocument } from '../src/contracts/asyncapi-document.js';
import { domainContracts } from '../src/contracts/domain-contracts.js';

const shop = new Domain('Shop');
@shop.aggregate()
class Order extends BaseAggregate {
  @field.string() customer?: string;
}
@shop.event({ partOf: Order, published: true })
class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.integer({ required: true, min: 1 }) quantity!: number;
}
void OrderPlaced;

const contracts = domainContracts(shop);
const SOURCE = 'https://shop.example.com/orders';

/** An OrderPlaced as the outbox hands it to an external broker (the stripped envelope). */
const envelope: MessageEnvelope = {
  data: { orderId: 'o-1', quantity: 2 },
  metadata: {
    headers: { id: 'msg-1', time: '2026-11-30T10:00:00.000Z', type: 'Shop.OrderPlaced.v1', stream: 'shop::order-o-1' },
    envelope: { specversion: '1.0', position: { key: 'shop::order-o-1', sequence: 3 } },
    domain: { fqn: 'Shop.OrderPlaced', kind: 'EVENT', streamCategory: 'shop::order', version: 1, correlationId: 'c-1', causationId: 'c-1', published: true },
    extensions: {},
  },
};

function documentFor(provider: string, settings: Record<string, unknown>) {
  return asyncApiDocument({
    contracts,
    broker: { name: 'partners', settings: { provider, uri: 'redis://127.0.0.1:6379', message_format: 'cloudevents', ...settings } },
    version: '1.0.0',
  });
}

function messageOf(document: Record<string, unknown>): Record<string, unknown> {
  const messages = (document.components as { messages: Record<string, Record<string, unknown>> }).messages;
  return messages['Shop.OrderPlaced.v1']!;
}

function validator(schema: unknown) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema as object);
}

describe('AsyncAPI of a CloudEvents broker', () => {
  it('structured mode: the payload is the CloudEvent the broker sends, as application/cloudevents+json', async () => {
    const document = documentFor('redis', {});
    const message = messageOf(document);
    expect(message.contentType).toBe('application/cloudevents+json');
    const valid = validator(message.payload);
    const sent = envelopeToCloudEvent(envelope);
    expect(valid(sent), JSON.stringify(valid.errors)).toBe(true);
    // The envelope's shape is not what travels: the schema refuses it.
    expect(valid(envelope)).toBe(false);
    expect(valid({ ...sent, data: { orderId: 'o-1', quantity: 0 } })).toBe(false);
    expect(document.components).not.toHaveProperty('schemas.Metadata');
    const { diagnostics } = await new Parser().parse(JSON.stringify(document));
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  });

  it.each([
    ['redis', 'ce_'],
    ['rabbitmq', 'cloudEvents_'],
    ['nats', 'ce-'],
  ])('binary mode on %s: the payload is data as application/json, the attributes are %s headers', async (provider, prefix) => {
    const document = documentFor(provider, { cloudevents_mode: 'binary', cloudevents_source: SOURCE });
    const message = messageOf(document);
    expect(message.contentType).toBe('application/json');
    const binary = toBinaryCloudEvent(envelopeToCloudEvent(envelope, SOURCE));
    const headers = Object.fromEntries(Object.entries(binary.attributes).map(([name, value]) => [`${prefix}${name}`, value]));
    const validHeaders = validator(message.headers);
    expect(validHeaders(headers), JSON.stringify(validHeaders.errors)).toBe(true);
    expect(validHeaders({ ...headers, [`${prefix}source`]: 'https://elsewhere.example.com' })).toBe(false);
    const validPayload = validator(message.payload);
    expect(validPayload(JSON.parse(binary.body)), JSON.stringify(validPayload.errors)).toBe(true);
    const { diagnostics } = await new Parser().parse(JSON.stringify(document));
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  });

  it('an envelope broker keeps describing the envelope', () => {
    const document = asyncApiDocument({ contracts, broker: { name: 'partners', settings: { provider: 'redis', uri: 'redis://h' } }, version: '1' });
    expect(Object.keys((messageOf(document).payload as { properties: object }).properties)).toEqual(['data', 'metadata']);
  });
});
