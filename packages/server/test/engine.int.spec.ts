import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Broker, Domain, OutboxCounts } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { createTempDatabase, freePort, REDIS_URI, startRedisServer, stopProcess, uniquePrefix, type TempDatabase } from './support/real-services.js';
import { makeShop } from './support/shop-fixture.js';

const up = await servicesUp(POSTGRES, REDIS);
const serverRoot = fileURLToPath(new URL('..', import.meta.url));
// tsx applies a tsconfig only to the files it includes: the root one covers every package's sources.
const rootTsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));

function shopConfig(db: TempDatabase, broker: Record<string, unknown>) {
  return {
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
    brokers: { default: { provider: 'redis', ...broker } },
    event_processing: 'async',
    server: {
      health: { port: 0 },
      stream_subscription: { blocking_timeout_ms: 100, max_retries: 1, retry_delay_seconds: 0.05, enable_dlq: true },
    },
    outbox: { tick_interval: 0.2 },
  };
}

async function setupTables(domain: Domain): Promise<void> {
  await domain.init();
  for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
}

async function outboxCounts(domain: Domain): Promise<OutboxCounts> {
  return domain.providers.get('default')!.outbox.counts();
}

describe.skipIf(!up)('Engine against PostgreSQL and Redis', () => {
  let db: TempDatabase;
  let engine: Engine | null = null;
  let logs: ReturnType<typeof captureLogs>;
  beforeAll(async () => {
    db = await createTempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    logs.restore();
  });

  it('relays a committed command through the outbox and Redis to its handler, and the raised event to the event handlers', async () => {
    const prefix = uniquePrefix('relay');
    const shop = makeShop('Relay', shopConfig(db, { uri: REDIS_URI, stream_prefix: prefix }));
    await setupTables(shop.domain);
    engine = new Engine(shop.domain);
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
    await eventually(() => shop.probe.placed.includes('Ann'));
    expect((await shop.domain.repositoryFor(shop.Order).query({})).map((o) => o.customer)).toEqual(['Ann']);
    // Both the command row and the event row were published.
    await eventually(async () => (await outboxCounts(shop.domain)).published === 2);
    const drained = await engine.waitUntilDrained(15_000);
    expect(drained).toMatchObject({ drained: true });
    const broker = shop.domain.brokers.get('default')! as Broker;
    const letters = await broker.listDeadLetters('relay::order');
    expect(letters.map((l) => l.group)).toEqual(['Broken']);
    expect(letters[0]!.error).toContain('broken handler refuses Ann');
    const health = await fetch(`http://127.0.0.1:${engine.boundHealthPort}/readyz`);
    expect(health.status).toBe(200);
  });

  it('takes over a message a crashed process left unacked, once claim_idle_ms has passed', async () => {
    const prefix = uniquePrefix('crash');
    const config = shopConfig(db, { uri: REDIS_URI, stream_prefix: prefix, claim_idle_ms: 400 });
    const shop = makeShop('Crash', config);
    await setupTables(shop.domain);
    const child = spawn(process.execPath, ['--conditions=@protean-ts/source', '--import', 'tsx', 'test/fixtures/crashing-engine.ts'], {
      cwd: serverRoot,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: rootTsconfig,
        SHOP_NAME: 'Crash',
        SHOP_CONFIG: JSON.stringify(config),
        PROTEAN_TEST_CRASH_ON: 'Zed',
        PROTEAN_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const [, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    expect(signal).toBe('SIGKILL');
    const broker = shop.domain.brokers.get('default')!;
    // The dead process held the event: delivered to Ledger's group, never acked.
    expect(await broker.groupStatus('crash::order', 'Ledger')).toMatchObject({ pending: 1, lag: 0 });

    engine = new Engine(shop.domain, { health: false, reclaimIntervalMs: 100 });
    await engine.start();
    await eventually(() => shop.probe.placed.includes('Zed'));
    await eventually(async () => (await broker.groupStatus('crash::order', 'Ledger')).pending === 0);
    expect(logs.records.some((r) => r.msg === 'took over messages left pending by a stopped consumer' && r.handler === 'Ledger')).toBe(true);
  });

  it('backs off while Redis is down (readiness 503, the outbox keeps the events) and catches up when it is back', async () => {
    const port = await freePort();
    let redis = await startRedisServer(port);
    // Its own database: a row another test's killed process still holds would be counted below.
    const own = await createTempDatabase();
    try {
      const shop = makeShop('Outage', shopConfig(own, { uri: `redis://127.0.0.1:${port}`, stream_prefix: uniquePrefix('outage') }));
      await setupTables(shop.domain);
      engine = new Engine(shop.domain);
      await engine.start();
      const base = `http://127.0.0.1:${engine.boundHealthPort}`;
      await eventually(async () => (await fetch(`${base}/readyz`)).status === 200);

      await stopProcess(redis);
      await eventually(async () => (await fetch(`${base}/readyz`)).status === 503);
      const body = (await (await fetch(`${base}/healthz`)).json()) as { checks: { name: string; ok: boolean }[] };
      expect(body.checks.find((c) => c.name === 'broker:default')).toMatchObject({ ok: false });
      // Committed while the broker is down: the command waits in the outbox, nothing is lost.
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Pat' }), { asynchronous: true });
      const waiting = await outboxCounts(shop.domain);
      expect(waiting.pending + waiting.processing + waiting.failed).toBe(1);
      await eventually(() => engine!.subscriptionStatuses().some((s) => s.state === 'backing-off'));

      redis = await startRedisServer(port);
      await eventually(() => shop.probe.placed.includes('Pat'), 30_000);
      await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, 20_000);
      expect(logs.records.some((r) => r.msg === 'subscription recovered')).toBe(true);
    } finally {
      await engine?.stop();
      engine = null;
      await stopProcess(redis);
      await own.drop();
    }
  });

  it('regression: an entry without an envelope in a subscribed stream is dead-lettered, and the messages around it are handled', async () => {
    const prefix = uniquePrefix('foreign');
    const shop = makeShop('Foreign', shopConfig(db, { uri: REDIS_URI, stream_prefix: prefix, claim_idle_ms: 100 }));
    await setupTables(shop.domain);
    engine = new Engine(shop.domain, { health: false, reclaimIntervalMs: 200 });
    await engine.start();
    const redis = new Redis(REDIS_URI);
    try {
      // Another system writes to the subscriber's stream in its own format.
      const foreign = await redis.xadd(`${prefix}payments-gateway`, '*', 'payment', 'p-0');
      const broker = shop.domain.brokers.get('default')!;
      // The read that delivers it moves it to the dead-letter stream instead of failing.
      const letters = await eventually(async () => {
        const found = await broker.listDeadLetters('payments-gateway');
        return found.length ? found : null;
      });
      expect(letters.map((l) => [l.originalId, l.group, l.envelope, l.rawFields])).toEqual([[foreign, 'GatewayCallbacks', null, ['payment', 'p-0']]]);
      const envelope = (paymentId: string) => ({
        data: { paymentId },
        metadata: {
          headers: { id: paymentId, time: new Date().toISOString(), type: 'Gateway.PaymentCaptured.v1', stream: 'payments-gateway' },
          envelope: { specversion: '1.0' as const },
          domain: { fqn: 'Gateway.PaymentCaptured', kind: 'EVENT' as const, streamCategory: 'payments-gateway', version: 1 },
          extensions: {},
        },
      });
      await broker.publish({ stream: 'payments-gateway', envelope: envelope('p-1') });
      await eventually(() => shop.probe.received.length === 1);
      // Past claim_idle_ms: a foreign entry still pending would now come back with every reclaim.
      await new Promise((r) => setTimeout(r, 500));
      await broker.publish({ stream: 'payments-gateway', envelope: envelope('p-2') });
      await eventually(() => shop.probe.received.length === 2, 10_000);
      expect(shop.probe.received.map((p) => (p.data as { paymentId: string }).paymentId)).toEqual(['p-1', 'p-2']);
      expect(engine.subscriptionStatuses().find((s) => s.name === 'GatewayCallbacks')!.state).toBe('running');
      await eventually(async () => (await broker.groupStatus('payments-gateway', 'GatewayCallbacks')).pending === 0);
      expect(await broker.listDeadLetters('payments-gateway')).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });

  it('regression: a message whose dead-lettering fails is not acked, and is dead-lettered once that works again', async () => {
    const prefix = uniquePrefix('dlqfail');
    const shop = makeShop('DlqFail', shopConfig(db, { uri: REDIS_URI, stream_prefix: prefix, claim_idle_ms: 300 }));
    await setupTables(shop.domain);
    const redis = new Redis(REDIS_URI);
    try {
      // A key of the wrong type where the dead-letter stream goes: XADD to it fails.
      await redis.set(`${prefix}dlq_fail::order:dlq`, 'not a stream');
      engine = new Engine(shop.domain, { health: false, reclaimIntervalMs: 200 });
      await engine.start();
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Hal' }), { asynchronous: true });
      await eventually(() => logs.records.some((r) => r.msg === 'dead-lettering failed; the message stays pending and is not acked' && r.handler === 'Broken'));
      const broker = shop.domain.brokers.get('default')!;
      expect((await broker.groupStatus('dlq_fail::order', 'Broken')).pending).toBe(1);

      await redis.del(`${prefix}dlq_fail::order:dlq`);
      const letters = await eventually(async () => {
        const found = await broker.listDeadLetters('dlq_fail::order');
        return found.length ? found : null;
      });
      expect(letters.map((l) => l.group)).toEqual(['Broken']);
      expect((await broker.groupStatus('dlq_fail::order', 'Broken')).pending).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('regression: a replay that cannot publish keeps the dead letter', async () => {
    const prefix = uniquePrefix('replay');
    const shop = makeShop('Replay', shopConfig(db, { uri: REDIS_URI, stream_prefix: prefix }));
    await shop.domain.init();
    const broker = shop.domain.brokers.get('default')!;
    const redis = new Redis(REDIS_URI);
    try {
      const envelope = {
        data: { n: 1 },
        metadata: {
          headers: { id: 'm-1', time: new Date().toISOString(), type: 'X.Y.v1', stream: 'jobs' },
          envelope: { specversion: '1.0' as const },
          domain: { fqn: 'X.Y', kind: 'EVENT' as const, streamCategory: 'jobs', version: 1 },
          extensions: {},
        },
      };
      await broker.publish({ stream: 'jobs', envelope });
      const [message] = await broker.read('jobs', 'workers', 'c1', { count: 1, blockMs: 0 });
      await broker.deadLetter('jobs', 'workers', message!, 'boom');
      // The stream key now holds something else: publishing the replay fails.
      await redis.del(`${prefix}jobs`);
      await redis.set(`${prefix}jobs`, 'not a stream');
      await expect(broker.replayDeadLetters('jobs')).rejects.toThrow(/WRONGTYPE/);
      expect((await broker.listDeadLetters('jobs')).map((l) => l.envelope?.metadata.headers.id)).toEqual(['m-1']);
    } finally {
      redis.disconnect();
      await shop.domain.close();
    }
  });

  it('waits for a broker that is down at start, reports it as not ready, and starts once it answers', async () => {
    const port = await freePort();
    const shop = makeShop('Late', shopConfig(db, { uri: `redis://127.0.0.1:${port}`, stream_prefix: uniquePrefix('late') }));
    // Tables first, without touching the broker (domain.init() would connect it).
    await shop.domain.init({ connect: false });
    await shop.domain.providers.get('default')!.setupSchema(shop.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
    await shop.domain.close();
    engine = new Engine(shop.domain, { health: false });
    const starting = engine.start();
    const waiting = await eventually(async () => {
      const report = await engine!.healthReport();
      const brokerDown = report.checks.some((c) => c.name === 'broker:default' && !c.ok && c.detail?.includes('ECONNREFUSED'));
      const databaseUp = report.checks.some((c) => c.name === 'database:default' && c.ok);
      return brokerDown && databaseUp ? report : null;
    });
    expect(waiting.ready).toBe(false);
    const warn = logs.records.find((r) => r.msg === 'waiting for broker');
    expect(warn).toMatchObject({ level: 'warn', broker: 'default', provider: 'redis', uri: `redis://127.0.0.1:${port}`, attempt: 1 });
    expect(warn?.nextRetryInMs).toBeGreaterThan(0);

    const redis = await startRedisServer(port);
    try {
      await starting;
      expect(logs.records.find((r) => r.msg === 'broker connected')).toMatchObject({ level: 'info', broker: 'default' });
      await eventually(async () => (await engine!.healthReport()).ready);
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
      await eventually(async () => shop.probe.placed.includes('Ann'));
    } finally {
      await engine.stop();
      engine = null;
      await stopProcess(redis);
    }
  });

  it('gives up after [server] startup_timeout_seconds, naming what never came up with its masked URI', async () => {
    const port = await freePort();
    const shop = makeShop('Dead', {
      ...shopConfig(db, { uri: `redis://:secret@127.0.0.1:${port}` }),
      server: { health: { port: 0 }, startup_timeout_seconds: 1 },
    });
    engine = new Engine(shop.domain, { health: false });
    const error = await engine.start().then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.name).toBe('InfrastructureUnavailableError');
    expect(error?.message).toMatch(
      new RegExp(`still not reachable after \\d+ s[^]*\\[brokers\\.default\\] \\(redis at redis://:\\*+@127\\.0\\.0\\.1:${port}\\).*ECONNREFUSED`),
    );
    expect(error?.message).not.toContain('secret');
    await engine.stop();
    engine = null;
  });

  it('fails at once, without waiting, when Redis refuses the credentials or the database does not exist', async () => {
    const badAuth = makeShop('BadAuth', shopConfig(db, { uri: 'redis://nobody:wrong@127.0.0.1:6379' }));
    engine = new Engine(badAuth.domain, { health: false });
    const authError = await engine.start().then(
      () => null,
      (e: Error) => e,
    );
    expect(authError?.message).toMatch(/\[brokers\.default\] uri: Redis at redis:\/\/nobody:\*+@127\.0\.0\.1:6379 refused the credentials \(WRONGPASS/);
    await engine.stop();

    const missing = makeShop('NoDb', shopConfig({ ...db, uri: `${db.uri}_missing` }, { uri: REDIS_URI }));
    engine = new Engine(missing.domain, { health: false });
    const dbError = await engine.start().then(
      () => null,
      (e: Error) => e,
    );
    expect(dbError?.message).toMatch(/\[databases\.default\] cannot connect to PostgreSQL at .*_missing: .*does not exist/);
    expect(logs.records.filter((r) => r.msg.startsWith('waiting for'))).toEqual([]);
    await engine.stop();
    engine = null;
  });
});
