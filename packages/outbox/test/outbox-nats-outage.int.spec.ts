/**
 * NATS unreachable while the relay runs, and back: the processor pauses and probes, holds no
 * rows, burns no attempts, and resumes by itself. The shared nats-server is never stopped: the
 * broker talks to it through a TCP proxy of this file's own, which the test cuts (every
 * connection dropped, new ones refused) and restores. A publish whose answer was lost in the cut
 * is sent again later under the same Nats-Msg-Id, and JetStream keeps one copy.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewOutboxRow } from '@protean-ts/core';
import { NATS, POSTGRES, RowFactory, servicesUp } from '@protean-ts/core/testing';
import type { PostgresProvider } from '@protean-ts/mikro-orm';
import { NatsBroker } from '@protean-ts/nats';
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, waitFor, type CapturedLogs } from './support/processor-fixtures.js';
import { appendCommitted, createTempDatabase, drainStream, outboxDatabase, type TempDatabase } from './support/real-services.js';
import { TcpProxy } from './support/tcp-proxy.js';

const up = await servicesUp(POSTGRES, NATS);
const prefix = `ptest-outbox-outage-${randomBytes(4).toString('hex')}-`;

describe.skipIf(!up)('OutboxProcessor while NATS is unreachable', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  let proxy: TcpProxy;
  let broker: NatsBroker;
  let logs: CapturedLogs;
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_nats_outage');
    provider = await outboxDatabase(db.uri);
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: 4222 });
    broker = new NatsBroker(rows.broker, { provider: 'nats', uri: `nats://127.0.0.1:${proxy.port}`, stream_prefix: prefix, request_timeout_ms: 2_000 });
    await broker.connect();
  });
  afterAll(async () => {
    await broker?.close();
    await proxy?.close();
    await provider?.close();
    await db?.drop();
    if (up) {
      const nc = await connect({ servers: '127.0.0.1:4222' });
      const jsm = await jetstreamManager(nc);
      for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
      await jsm.streams.delete(`KV_${prefix}protean_consumers`).catch(() => undefined);
      await nc.close();
    }
  });
  afterEach(() => logs?.restore());

  const commitRound = (n: number, keys: number): NewOutboxRow[] => Array.from({ length: keys }, (_, k) => rows.row(`key${k}`, n));
  const mine = async () => (await provider.outbox.list({ limit: 100_000 })).filter((r) => r.targetBroker === rows.broker);

  it('loses nothing, consumes no attempts, and resumes on its own', async () => {
    logs = captureLogs();
    const relay = new OutboxProcessor({
      name: 'nats-outage-relay',
      store: provider.outbox,
      broker,
      config: outboxConfig({ tick_interval: 0.1, messages_per_tick: 50 }),
      workerId: 'nats-outage-worker',
      brokerProbe: { initialMs: 100, maxMs: 500 },
    });
    await relay.start();
    try {
      for (let n = 1; n <= 2; n++) await appendCommitted(provider, commitRound(n, 30));
      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === 60, 10_000, 'the first 60 rows');

      await proxy.cut();
      for (let n = 3; n <= 10; n++) await appendCommitted(provider, commitRound(n, 30));
      await waitFor(() => relay.state === 'broker-unavailable', 15_000, 'the processor to pause');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const during = await mine();
      expect(during.filter((r) => r.status === 'processing')).toEqual([]);
      expect(during.filter((r) => r.retryCount > 0 || r.status === 'failed' || r.status === 'abandoned')).toEqual([]);
      expect(during.filter((r) => r.status === 'pending').length).toBeGreaterThan(0);
      expect(await broker.ping()).toBe(false);

      await proxy.restore();
      await waitFor(async () => (await provider.outbox.counts(rows.broker)).published === 300, 30_000, 'all 300 rows after NATS is back');
      expect(relay.state).toBe('running');
    } finally {
      await relay.stop();
    }

    const after = await mine();
    expect(after.every((r) => r.status === 'published' && r.retryCount === 0)).toBe(true);
    expect(logs.messages('warn').filter((m) => m.startsWith('broker unreachable; pausing'))).toHaveLength(1);
    expect(logs.messages('info').some((m) => m === 'broker reachable again; resuming')).toBe(true);

    // Every message is in the stream once (a lost publish answer was deduplicated), in order per key.
    const envelopes = await drainStream(broker, 'conformance::thing');
    const ids = envelopes.map((e) => e.metadata.headers.id);
    expect(new Set(ids).size).toBe(300);
    expect(ids).toHaveLength(300);
    const perKey = new Map<string, string[]>();
    for (const e of envelopes) perKey.set(e.metadata.headers.stream, [...(perKey.get(e.metadata.headers.stream) ?? []), String(e.metadata.domain.sequenceId)]);
    const expected = Array.from({ length: 10 }, (_, i) => `${i + 1}.0`).join();
    expect([...perKey.values()].filter((s) => s.join() !== expected)).toEqual([]);
  }, 90_000);
});
