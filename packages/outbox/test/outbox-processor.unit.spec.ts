/**
 * The OutboxProcessor against the memory outbox store and the inline broker: relaying in
 * per-key order, waking on commit, message-level failures and abandoning, outage handling,
 * cleanup, metrics, stopping, and the factory.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, InlineBroker, MemoryProvider, passedRowOf, POSITION_PASSED_TYPE, type NewOutboxRow, type OutboxRow } from '@protean-ts/core';
import { RowFactory } from '@protean-ts/conformance';
import { createOutboxProcessors, OutboxConfigError, OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, poisoned, waitFor, type CapturedLogs } from './support/processor-fixtures.js';

describe('OutboxProcessor (memory store, inline broker)', () => {
  let provider: MemoryProvider;
  let broker: InlineBroker;
  let rows: RowFactory;
  let logs: CapturedLogs;
  const processors: OutboxProcessor[] = [];

  beforeEach(async () => {
    logs = captureLogs();
    provider = new MemoryProvider('default');
    rows = new RowFactory();
    broker = new InlineBroker(rows.broker);
    await broker.connect();
    await broker.ensureGroup('conformance::thing', 'check');
  });
  afterEach(async () => {
    await Promise.all(processors.splice(0).map((p) => p.stop()));
    await broker.close();
    logs.restore();
  });

  function processor(
    overrides: Parameters<typeof outboxConfig>[0] = {},
    options: Partial<ConstructorParameters<typeof OutboxProcessor>[0]> = {},
  ): OutboxProcessor {
    const created = new OutboxProcessor({
      name: `outbox-processor-default-to-${broker.name}`,
      store: provider.outbox,
      broker,
      config: outboxConfig(overrides),
      workerId: 'worker-1',
      ...options,
    });
    processors.push(created);
    return created;
  }

  async function commit(...newRows: NewOutboxRow[]): Promise<void> {
    const tx = await provider.begin();
    await provider.outbox.append(tx, newRows);
    await tx.commit();
  }

  async function delivered(): Promise<{ messageId: string; partitionKey: string; sequence: number }[]> {
    const messages = await broker.read('conformance::thing', 'check', 'reader', { count: 10_000, blockMs: 0 });
    return messages.map((m) => ({
      messageId: m.envelope.metadata.headers.id,
      partitionKey: m.envelope.metadata.headers.stream,
      sequence: Number(String(m.envelope.metadata.domain.sequenceId).split('.')[0]),
    }));
  }

  const all = () => provider.outbox.list({ limit: 100_000 });
  const byStatus = async (status: OutboxRow['status']) => (await all()).filter((r) => r.status === status);

  it('relays every committed row once, in sequence order per partition key, and marks it published', async () => {
    const keys = ['a', 'b', 'c', 'd'];
    await commit(...keys.flatMap((k) => [1, 2, 3, 4, 5].map((n) => rows.row(k, n))));
    const relay = processor({ messages_per_tick: 3 });
    for (let i = 0; i < 20 && (await byStatus('published')).length < 20; i++) await relay.tick();

    expect(await byStatus('published')).toHaveLength(20);
    const got = await delivered();
    expect(new Set(got.map((m) => m.messageId)).size).toBe(20);
    for (const key of keys) {
      expect(got.filter((m) => m.partitionKey === rows.key(key)).map((m) => m.sequence)).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it('with two lanes, each claims its share of messages_per_tick and per-key order still holds', async () => {
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    await commit(...keys.flatMap((k) => [1, 2, 3, 4, 5].map((n) => rows.row(k, n))));
    const limits: number[] = [];
    const store = Object.create(provider.outbox) as typeof provider.outbox;
    store.claimBatch = (request) => {
      limits.push(request.limit);
      return provider.outbox.claimBatch(request);
    };
    store.markPublishedAndClaim = (ids, request) => {
      limits.push(request.limit);
      return provider.outbox.markPublishedAndClaim(ids, request);
    };
    const relay = processor({ messages_per_tick: 4 }, { store, lanes: 2 });
    await relay.start();
    await waitFor(async () => (await byStatus('published')).length === 50, 5000, 'all rows');
    expect(new Set(limits)).toEqual(new Set([2]));
    const got = await delivered();
    for (const key of keys) expect(got.filter((m) => m.partitionKey === rows.key(key)).map((m) => m.sequence)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a running processor marks each batch in the claim of the next (one store call per batch); the last on its own', async () => {
    await commit(...Array.from({ length: 10 }, (_, i) => rows.row(`k${i}`, 1)));
    const calls: string[] = [];
    const store = Object.create(provider.outbox) as typeof provider.outbox;
    store.claimBatch = (request) => {
      calls.push('claim');
      return provider.outbox.claimBatch(request);
    };
    store.markPublishedAndClaim = (ids, request) => {
      calls.push(`mark ${ids.length} + claim`);
      return provider.outbox.markPublishedAndClaim(ids, request);
    };
    store.markPublished = (workerId, ids) => {
      calls.push(`mark ${ids.length}`);
      return provider.outbox.markPublished(workerId, ids);
    };
    // A pass long enough (60 s tick) that it cannot end before the rows run out, however slow the machine.
    const relay = processor({ messages_per_tick: 4, tick_interval: 60 }, { store });
    await relay.start();
    await waitFor(async () => (await byStatus('published')).length === 10, 5000, 'all rows');
    await relay.stop();
    // 4 + 4 + 2 rows: each claim marks the batch before it; the fourth (empty) marks the third.
    // (A later pass, woken by a commit signal, only claims.)
    expect(calls.slice(0, 4)).toEqual(['claim', 'mark 4 + claim', 'mark 4 + claim', 'mark 2 + claim']);
    expect(calls.filter((call) => call.startsWith('mark'))).toHaveLength(3);
    expect((await relay.metrics()).totals).toMatchObject({ published: 10, lostLocks: 0, batches: 3 });
  });

  it('a batch published when the pass ends (tick used up, or stopping) is marked on its own', async () => {
    await commit(...Array.from({ length: 6 }, (_, i) => rows.row(`k${i}`, 1)));
    const calls: string[] = [];
    const store = Object.create(provider.outbox) as typeof provider.outbox;
    store.markPublishedAndClaim = async (ids, request) => {
      calls.push(`mark ${ids.length} + claim`);
      const done = await provider.outbox.markPublishedAndClaim(ids, request);
      // Asked to stop while this claim's batch is being published: the lane ends after it.
      void relay.stop();
      return done;
    };
    store.markPublished = (workerId, ids) => {
      calls.push(`mark ${ids.length}`);
      return provider.outbox.markPublished(workerId, ids);
    };
    const relay = processor({ messages_per_tick: 2, tick_interval: 60 }, { store });
    await relay.start();
    await waitFor(() => calls.length >= 2, 5000, 'two store calls');
    await relay.stop();
    expect(calls).toEqual(['mark 2 + claim', 'mark 2']);
    expect(await byStatus('published')).toHaveLength(4);
    expect(await byStatus('pending')).toHaveLength(2);
  });

  it('a commit wakes a running processor without waiting for the poll', async () => {
    // The poll is a minute away: only the commit signal can explain a prompt publish.
    const relay = processor({ tick_interval: 60 });
    await relay.start();
    await waitFor(() => logs.messages('info').includes('outbox processor started'), 2000, 'start');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await commit(rows.row('a', 1));
    await waitFor(async () => (await byStatus('published')).length === 1, 5000, 'the row to be published');
    expect((await delivered()).map((m) => m.partitionKey)).toEqual([rows.key('a')]);
  });

  it('promotes due rows at start and at manual ticks, not before the claim of a pass a commit woke', async () => {
    let promotions = 0;
    const store = Object.create(provider.outbox) as typeof provider.outbox;
    store.promoteDue = (targetBroker, limit, options) => {
      promotions += 1;
      return provider.outbox.promoteDue(targetBroker, limit, options);
    };
    // The poll is a minute away: no promotion may come from the interval during the test.
    const relay = processor({ tick_interval: 60 }, { store });
    await relay.start();
    await waitFor(() => promotions === 1, 2000, 'the first pass to promote');
    for (const n of [1, 2, 3]) {
      await commit(rows.row('a', n));
      await waitFor(async () => (await byStatus('published')).length === n, 5000, `row ${n} to be published`);
    }
    expect(promotions).toBe(1);
    await relay.tick();
    expect(promotions).toBe(2);
  });

  it('a poisoned message fails alone: the rest of its batch is published and its key waits behind it', async () => {
    const bad = poisoned(rows.row('a', 1));
    await commit(bad, rows.row('a', 2), rows.row('b', 1), rows.row('c', 1));
    const relay = processor({ retry: { base_delay_seconds: 30, max_backoff_seconds: 60 } });
    const before = Date.now();
    const result = await relay.tick();

    expect(result).toMatchObject({ claimed: 3, published: 2, failed: 1, abandoned: 0, released: 0, brokerUnavailable: false });
    const [failed] = await byStatus('failed');
    expect(failed).toMatchObject({ messageId: bad.messageId, retryCount: 1 });
    expect(failed!.lastError).toMatch(/BrokerArgumentError: .*metadata\.headers/);
    expect(failed!.nextRetryAt!.getTime()).toBeGreaterThanOrEqual(before + 30_000);
    expect(failed!.nextRetryAt!.getTime()).toBeLessThanOrEqual(Date.now() + 30_000);
    expect((await relay.tick()).claimed).toBe(0);
    expect((await all()).find((r) => r.partitionKey === rows.key('a') && r.sequence === 2)!.status).toBe('pending');
    expect(logs.messages('warn').some((m) => /publish failed \(attempt 1 of 3\); retrying in 30000 ms/.test(m))).toBe(true);
  });

  it('abandons a message after max attempts, logs it at WARN, and lets its key move on', async () => {
    const bad = { ...poisoned(rows.row('a', 1)), maxRetries: 2 };
    await commit(bad, rows.row('a', 2));
    const relay = processor();
    await relay.tick();
    expect((await byStatus('failed'))[0]).toMatchObject({ retryCount: 1 });
    await relay.tick();
    const [abandoned] = await byStatus('abandoned');
    expect(abandoned).toMatchObject({ messageId: bad.messageId, retryCount: 2 });
    expect(logs.records.some((r) => r.level === 'warn' && r.msg === 'message abandoned after 2 attempts' && r.messageId === bad.messageId)).toBe(true);
    await relay.tick();
    expect((await delivered()).map((m) => m.sequence)).toEqual([2]);
  });

  it('publishes a position marker in place of an abandoned message on the outbox broker, so consumers move its key on', async () => {
    const bad = { ...poisoned(rows.row('a', 1)), maxRetries: 1 };
    await commit(bad, rows.row('a', 2));
    const relay = processor({ broker: broker.name });
    await relay.tick();
    await relay.tick();
    const messages = await broker.read('conformance::thing', 'check', 'reader', { count: 100, blockMs: 0 });
    const [marker, next] = messages.map((m) => m.envelope);
    expect(marker!.metadata.headers.type).toBe(POSITION_PASSED_TYPE);
    expect(marker!.metadata.envelope.position).toEqual({ key: rows.key('a'), sequence: 1 });
    expect(passedRowOf(marker)).toMatchObject({ messageId: bad.messageId, reason: expect.stringContaining('abandoned in the outbox') });
    expect(next!.metadata.envelope.position).toEqual({ key: rows.key('a'), sequence: 2 });
  });

  it('a closed broker is an outage: rows go back untouched and no attempt is consumed', async () => {
    await commit(rows.row('a', 1), rows.row('b', 1));
    await broker.close();
    const relay = processor();
    const result = await relay.tick();
    expect(result).toMatchObject({ claimed: 2, published: 0, failed: 0, released: 2, brokerUnavailable: true });
    for (const row of await all()) expect(row).toMatchObject({ status: 'pending', retryCount: 0, lockedBy: null });
  });

  it('a running processor pauses on an outage and holds no rows while paused', async () => {
    await broker.close();
    const relay = processor();
    await relay.start();
    await commit(rows.row('a', 1));
    await waitFor(() => relay.state === 'broker-unavailable', 5000, 'the pause');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [row] = await all();
    expect(row).toMatchObject({ status: 'pending', retryCount: 0 });
    expect(logs.messages('warn').some((m) => m.startsWith('broker unreachable; pausing'))).toBe(true);
  });

  it('stop() finishes the batch in flight and leaves no row processing', async () => {
    await commit(...Array.from({ length: 200 }, (_, i) => rows.row(`k${i}`, 1)));
    const relay = processor({ messages_per_tick: 25 });
    await relay.start();
    await waitFor(async () => (await byStatus('published')).length > 0, 5000, 'a first batch');
    await relay.stop();
    expect(relay.state).toBe('stopped');
    expect(await byStatus('processing')).toEqual([]);
    const published = (await byStatus('published')).length;
    expect(published + (await byStatus('pending')).length).toBe(200);
    expect((await delivered()).length).toBe(published);
  });

  it('cleanup runs on the first tick and then every cleanup_interval_ticks, deleting only what retention allows', async () => {
    await commit(rows.row('a', 1), rows.row('b', 1));
    const relay = processor({ cleanup: { cleanup_interval_ticks: 1_000_000, published_retention_hours: 0, abandoned_retention_hours: 0 } });
    for (let i = 0; i < 3; i++) await relay.tick();
    expect(await byStatus('published')).toHaveLength(2);
    // Retention 0 means "published before now": let the clock move past the publish.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await relay.start();
    await waitFor(async () => (await all()).length === 0, 5000, 'the first cleanup');
    expect(logs.messages('info')).toContain('outbox cleanup removed 2 published and 0 abandoned rows');

    // A second cleanup only comes a million ticks later: new published rows stay.
    await commit(rows.row('c', 1));
    await waitFor(async () => (await byStatus('published')).length === 1, 5000, 'the next publish');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await byStatus('published')).toHaveLength(1);
  });

  it('keeps published rows younger than published_retention_hours', async () => {
    await commit(rows.row('a', 1));
    const relay = processor({ cleanup: { cleanup_interval_ticks: 1, published_retention_hours: 1 } });
    await relay.start();
    await waitFor(async () => (await byStatus('published')).length === 1, 5000, 'the publish');
    await waitFor(() => relay['total'].ticks > 3, 5000, 'more ticks');
    expect(await byStatus('published')).toHaveLength(1);
  });

  it('reports a metrics snapshot: counts, oldest pending age, rate and totals', async () => {
    await commit(rows.row('a', 1), rows.row('a', 2), rows.row('b', 1), poisoned(rows.row('c', 1)));
    const relay = processor({ retry: { base_delay_seconds: 60, max_backoff_seconds: 60 } });
    await relay.tick();
    const metrics = await relay.metrics();
    expect(metrics).toMatchObject({
      name: `outbox-processor-default-to-${rows.broker}`,
      targetBroker: rows.broker,
      workerId: 'worker-1',
      state: 'new',
      pending: 1,
      processing: 0,
      failed: 1,
      abandoned: 0,
      totals: { published: 2, failed: 1, abandoned: 0, released: 0, lostLocks: 0, batches: 1 },
    });
    expect(metrics.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
    expect(metrics.publishedPerSecond).toBeCloseTo(2 / 60, 5);
  });

  it('tick_interval = 0 polls often but never spins', async () => {
    const relay = processor({ tick_interval: 0 });
    await relay.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // 300 ms at the 10 ms floor is at most ~30 passes (a spinning loop would make thousands).
    expect(relay['total'].ticks).toBeGreaterThan(3);
    expect(relay['total'].ticks).toBeLessThan(60);
  });

  it('refuses settings that cannot work, naming the domain.toml key', () => {
    expect(() => processor({ messages_per_tick: 0 })).toThrow(OutboxConfigError);
    expect(() => processor({ messages_per_tick: 0 })).toThrow(/outbox\.messages_per_tick must be an integer of at least 1, got 0/);
    expect(() => processor({ tick_interval: -1 })).toThrow(/outbox\.tick_interval must be a number of seconds of at least 0, got -1/);
    expect(() => processor({ cleanup: { cleanup_interval_ticks: 0 } })).toThrow(/outbox\.cleanup\.cleanup_interval_ticks/);
    expect(() => processor({ retry: { jitter_factor: 2 } })).toThrow(/outbox\.retry\.jitter_factor/);
    processors.length = 0;
  });

  it('refuses back-pressure settings that cannot work, and a broker that cannot report its lag', async () => {
    expect(() => processor({ max_consumer_lag: -1 })).toThrow(
      /outbox\.max_consumer_lag must be an integer of at least 0 \(0 turns back-pressure off\), got -1/,
    );
    expect(() => processor({ max_consumer_lag: 1.5 })).toThrow(OutboxConfigError);
    expect(() => processor({ max_consumer_lag: 10, lag_check_interval: 0 })).toThrow(
      /outbox\.lag_check_interval must be a number of seconds between 0\.01 and 3600, got 0/,
    );
    // The inline broker has no CONSUMER_LAG: the setting would have no effect, so it is refused.
    expect(() => processor({ max_consumer_lag: 10 })).toThrow(
      new RegExp(
        `outbox\\.max_consumer_lag is 10, but broker "${broker.name}" \\(provider inline\\) cannot report its consumers' lag \\(capability CONSUMER_LAG\\)`,
      ),
    );
    processors.length = 0;
    await expect(processor().metrics()).resolves.toMatchObject({ backPressure: null });
  });
});

describe('createOutboxProcessors', () => {
  const brokers = new Map([
    ['default', new InlineBroker('default')],
    ['audit', new InlineBroker('audit')],
  ]);
  const providers = new Map([
    ['default', new MemoryProvider('default')],
    ['reports', new MemoryProvider('reports')],
    ['legacy', new MemoryProvider('legacy', { managed: false })],
  ]);

  function config(outbox: Partial<ReturnType<typeof defaultConfig>['outbox']>, enable = true) {
    const base = defaultConfig();
    return { ...base, enable_outbox: enable, outbox: { ...base.outbox, ...outbox } };
  }

  it('makes one processor per managed database × target broker, named for both', () => {
    const made = createOutboxProcessors({ config: config({ external_brokers: ['audit', 'default'] }), providers, brokers }, { workerId: 'w' });
    expect(made.map((p) => p.name)).toEqual([
      'outbox-processor-default-to-default',
      'outbox-processor-default-to-audit-external',
      'outbox-processor-reports-to-default',
      'outbox-processor-reports-to-audit-external',
    ]);
    expect(made.map((p) => p.targetBroker)).toEqual(['default', 'audit', 'default', 'audit']);
    expect(new Set(made.map((p) => p.workerId))).toEqual(new Set(['w']));
  });

  it('makes none when the outbox is off', () => {
    expect(createOutboxProcessors({ config: config({}, false), providers, brokers })).toEqual([]);
  });

  it('names a broker that is not configured, and how to fix it', () => {
    expect(() => createOutboxProcessors({ config: config({ external_brokers: ['kafka'] }), providers, brokers })).toThrow(
      /outbox\.external_brokers\[0\] names broker "kafka", which is not configured \(brokers: "default", "audit"\); add a \[brokers\.kafka\] table/,
    );
  });
});
