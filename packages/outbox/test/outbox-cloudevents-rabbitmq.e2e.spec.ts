/**
 * Published events leaving as CloudEvents on RabbitMQ: two external brokers, one in structured
 * and one in binary mode, each read by another system's own queue with plain rabbitmq-client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, type AsyncMessage, type Channel } from 'rabbitmq-client';
import type { OutboxRow } from '@protean-ts/core';
import { createRabbitmqVhost, deleteRabbitmqVhost, POSTGRES, RABBITMQ, rabbitmqUri, servicesUp } from '@protean-ts/conformance';
import { expectCloudEventOfRow } from './support/cloud-event-checks.js';
import { BINARY_SOURCE, cloudEventShop, DEFAULT_SOURCE, type CloudEventShop } from './support/cloud-event-shop.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, RABBITMQ);

describe.skipIf(!up)('outbox → RabbitMQ external brokers sending CloudEvents', () => {
  let db: TempDatabase;
  let vhost: string;
  let app: CloudEventShop;
  let partner: Connection;
  let channel: Channel;
  const received = new Map<string, AsyncMessage[]>([
    ['structured', []],
    ['binary', []],
  ]);

  beforeAll(async () => {
    db = await createTempDatabase('outbox_ce_rabbit');
    vhost = await createRabbitmqVhost('outbox-ce');
    partner = new Connection(rabbitmqUri(vhost));
    channel = await partner.acquire();
    // The other system's queues, bound to the exchanges the external brokers publish to.
    for (const mode of received.keys()) {
      await channel.exchangeDeclare({
        exchange: `${mode}.shop::order`,
        type: 'fanout',
        durable: true,
        arguments: { 'alternate-exchange': `${mode}.protean.unrouted` },
      });
      await channel.queueDeclare({ queue: `billing-${mode}`, durable: true });
      await channel.queueBind({ queue: `billing-${mode}`, exchange: `${mode}.shop::order` });
      await channel.basicConsume({ queue: `billing-${mode}`, noAck: true }, (message) => void received.get(mode)!.push(message));
    }
    const uri = rabbitmqUri(vhost);
    app = await cloudEventShop(db, {
      default: { provider: 'rabbitmq', uri },
      structured: { provider: 'rabbitmq', uri, name_prefix: 'structured.' },
      binary: { provider: 'rabbitmq', uri, name_prefix: 'binary.' },
    });
  });
  afterAll(async () => {
    await app?.shop.domain.close();
    await channel?.close();
    await partner?.close();
    await db?.drop();
    if (vhost) await deleteRabbitmqVhost(vhost);
  });

  let rows: OutboxRow[] = [];
  beforeAll(async () => {
    rows = await app.publishAnOrder();
    for (let i = 0; i < 50 && [...received.values()].some((list) => list.length === 0); i++) await new Promise((r) => setTimeout(r, 100));
  });

  it('structured mode: the body is the whole CloudEvent, content type application/cloudevents+json', () => {
    const messages = received.get('structured')!;
    expect(messages).toHaveLength(1);
    const message = messages[0]!;
    expect(message.contentType).toBe('application/cloudevents+json');
    expect(message.durable).toBe(true);
    const { data, ...attributes } = JSON.parse(Buffer.from(message.body as Buffer).toString()) as Record<string, unknown>;
    expectCloudEventOfRow(
      attributes,
      data,
      rows.find((r) => r.targetBroker === 'structured')!,
      DEFAULT_SOURCE,
    );
  });

  it('binary mode: cloudEvents_ headers carry the attributes, the body is the data as application/json', () => {
    const messages = received.get('binary')!;
    expect(messages).toHaveLength(1);
    const message = messages[0]!;
    expect(message.contentType).toBe('application/json');
    const headers = (message.headers ?? {}) as Record<string, unknown>;
    const attributes = Object.fromEntries(
      Object.entries(headers).flatMap(([k, v]) => (k.startsWith('cloudEvents_') ? [[k.slice('cloudEvents_'.length), v]] : [])),
    );
    // rabbitmq-client parses an application/json body by itself.
    expectCloudEventOfRow(
      attributes,
      message.body,
      rows.find((r) => r.targetBroker === 'binary')!,
      BINARY_SOURCE,
    );
  });
});
