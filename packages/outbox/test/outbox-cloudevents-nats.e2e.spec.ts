/**
 * Published events leaving as CloudEvents on NATS JetStream: two external brokers, one in
 * structured and one in binary mode, each read by another system with a plain JetStream consumer.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { OutboxRow } from '@protean-ts/core';
import { NATS, POSTGRES, servicesUp } from '@protean-ts/conformance';
import type { NatsBroker } from '@protean-ts/nats';
import { expectCloudEventOfRow } from './support/cloud-event-checks.js';
import { BINARY_SOURCE, cloudEventShop, DEFAULT_SOURCE, type CloudEventShop } from './support/cloud-event-shop.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, NATS);
const NATS_URI = 'nats://127.0.0.1:4222';
const prefix = `ptest-outbox-ce-${randomBytes(4).toString('hex')}-`;

describe.skipIf(!up)('outbox → NATS JetStream external brokers sending CloudEvents', () => {
  let db: TempDatabase;
  let app: CloudEventShop;
  let rows: OutboxRow[] = [];

  beforeAll(async () => {
    db = await createTempDatabase('outbox_ce_nats');
    app = await cloudEventShop(db, {
      default: { provider: 'nats', uri: NATS_URI, stream_prefix: `${prefix}main-` },
      structured: { provider: 'nats', uri: NATS_URI, stream_prefix: `${prefix}s-`, subject_prefix: `${prefix}s` },
      binary: { provider: 'nats', uri: NATS_URI, stream_prefix: `${prefix}b-`, subject_prefix: `${prefix}b` },
    });
    rows = await app.publishAnOrder();
  });
  afterAll(async () => {
    await app?.shop.domain.close();
    await db?.drop();
    if (up) {
      const nc = await connect({ servers: '127.0.0.1:4222' });
      const jsm = await jetstreamManager(nc);
      for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
      await nc.close();
    }
  });

  /** The one message on the broker's `shop::order` stream, as a plain JetStream consumer gets it. */
  async function readAsAnotherSystem(broker: string) {
    const names = (app.shop.domain.brokers.get(broker) as NatsBroker).namesOf('shop::order');
    const nc = await connect({ servers: '127.0.0.1:4222' });
    try {
      const message = await (await jetstream(nc).consumers.get(names.stream)).next({ expires: 2_000 });
      expect(message?.subject).toBe(names.subject);
      const headers = Object.fromEntries((message?.headers?.keys() ?? []).map((key) => [key, message!.headers!.get(key)]));
      return { headers, text: message!.string() };
    } finally {
      await nc.close();
    }
  }

  it('structured mode: the payload is the whole CloudEvent, content-type application/cloudevents+json', async () => {
    const { headers, text } = await readAsAnotherSystem('structured');
    expect(headers['content-type']).toBe('application/cloudevents+json');
    const { data, ...attributes } = JSON.parse(text) as Record<string, unknown>;
    expectCloudEventOfRow(
      attributes,
      data,
      rows.find((r) => r.targetBroker === 'structured')!,
      DEFAULT_SOURCE,
    );
  });

  it('binary mode: ce- headers carry the attributes, the payload is the data as application/json', async () => {
    const { headers, text } = await readAsAnotherSystem('binary');
    expect(headers['content-type']).toBe('application/json');
    const attributes = Object.fromEntries(Object.entries(headers).flatMap(([k, v]) => (k.startsWith('ce-') ? [[k.slice(3), v]] : [])));
    expectCloudEventOfRow(
      attributes,
      JSON.parse(text),
      rows.find((r) => r.targetBroker === 'binary')!,
      BINARY_SOURCE,
    );
  });
});
