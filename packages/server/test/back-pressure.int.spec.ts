/**
 * Back-pressure on Redis, through the Engine. A subscription whose handler falls behind a deep
 * stream holds at most `messages_per_tick` read ahead (the broker shows no more delivered to it),
 * with reads paused; and with `outbox.max_consumer_lag` the relay stops filling the stream once
 * the group is past the bound, says so in status and /metrics, and resumes as the group catches up,
 * until every message is handled once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { collectStatus } from '../src/status/collect-status.js';
import { eventually } from './support/eventually.js';
import { flowBroker, type FlowBroker } from './support/flow-brokers.js';
import { flowDomain, newCallProbe } from './support/flow-fixture.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);
const READ = 20;
const KEYS = 40;
const PER_KEY = 15;
const TOTAL = KEYS * PER_KEY;

describe.skipIf(!up)('back-pressure (Redis)', () => {
  let engine: Engine | null = null;
  let db: TempDatabase | null = null;
  let broker: FlowBroker | null = null;

  afterEach(async () => {
    await engine?.stop();
    engine = null;
    await db?.drop();
    db = null;
    await broker?.cleanUp();
    broker = null;
  });

  const setUp = async (label: string, outbox: Record<string, unknown>) => {
    db = await createTempDatabase();
    broker = await flowBroker('redis', label);
    const probe = newCallProbe(25);
    const app = flowDomain(db, broker, {}, probe, { concurrency: 4 }, { messages_per_tick: READ }, outbox);
    await app.setUp();
    const tags = await app.commitJobs(KEYS, PER_KEY);
    engine = new Engine(app.domain, { health: { port: 0 } });
    const running = engine;
    const caller = () => running.subscriptionStatuses().find((s) => s.name === 'Caller')!;
    const group = async () => {
      const status = caller();
      return app.domain.runtime.infrastructure.broker('default').groupStatus(status.stream, status.group);
    };
    const metrics = async () => (await fetch(`http://127.0.0.1:${running.boundHealthPort}/metrics`)).text();
    return { app, probe, tags, caller, group, metrics };
  };

  it('a subscription behind a deep stream holds at most messages_per_tick read ahead, reads paused', async () => {
    const { probe, tags, caller, group, metrics } = await setUp('read-ahead', {});
    await engine!.start();
    // The relay fills the stream far beyond what the handler gets through meanwhile.
    await eventually(async () => ((await group()).lag ?? 0) > TOTAL / 2, 20_000);
    let held = 0;
    let delivered = 0;
    let paused = 0;
    const samples = 40;
    for (let i = 0; i < samples; i++) {
      const readAhead = caller().readAhead!;
      held = Math.max(held, readAhead.held);
      if (readAhead.paused) paused += 1;
      delivered = Math.max(delivered, (await group()).pending);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(held).toBeGreaterThan(READ / 2);
    expect(held).toBeLessThanOrEqual(READ);
    // The broker's own count of what it handed this group's consumers and is not acked agrees.
    expect(delivered).toBeLessThanOrEqual(READ);
    expect(paused).toBeGreaterThan(samples / 2);
    expect(caller().readAhead!.bound).toBe(2 * READ);
    expect((await group()).lag).toBeGreaterThan(TOTAL / 4);
    const text = await metrics();
    const gauge = /protean_subscription_read_ahead\{[^}]*messaging_consumer_group_name="Caller"[^}]*\} (\d+)/.exec(text);
    expect(Number(gauge?.[1])).toBeLessThanOrEqual(READ);
    expect(probe.handled.length).toBeLessThan(tags.length);
  }, 60_000);

  it('holds the relay back while the group lags past outbox.max_consumer_lag, visible in status and /metrics, and drains every message once', async () => {
    const MAX_LAG = 50;
    const RELAY_BATCH = 10;
    const { app, probe, tags, caller, group, metrics } = await setUp('relay-held', {
      max_consumer_lag: MAX_LAG,
      lag_check_interval: 0.05,
      messages_per_tick: RELAY_BATCH,
    });
    await engine!.start();
    const relay = await eventually(async () => {
      const report = (await collectStatus(app.domain)).relays?.[0];
      return report?.heldBack ? report : null;
    }, 20_000);
    expect(relay).toMatchObject({ broker: 'default', maxConsumerLag: MAX_LAG, worst: { group: 'Caller', stream: caller().stream } });
    expect(relay.worst!.behind).toBeGreaterThan(MAX_LAG);
    // The relay's own view, at its checks: held back (it resumes at half the bound, so this lasts a while).
    await eventually(async () => /protean_outbox_relay_held_back\{[^}]*protean_broker="default"[^}]*\} 1/.test(await metrics()), 10_000);
    expect(await metrics()).toMatch(/protean_outbox_relay_consumer_lag\{[^}]*\} \d+/);
    // Meanwhile the group never gets far past the bound: the rest waits in the outbox.
    let worst = 0;
    for (let i = 0; i < 20; i++) {
      const status = await group();
      worst = Math.max(worst, (status.lag ?? 0) + status.pending);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(worst).toBeLessThanOrEqual(MAX_LAG + RELAY_BATCH);
    const outbox = (await collectStatus(app.domain)).outboxes[0]!;
    expect(outbox.pending).toBeGreaterThan(0);

    await eventually(() => caller().handled === tags.length, 60_000, 50);
    expect([...probe.handled].sort()).toEqual([...tags].sort());
    expect(caller().deadLettered).toBe(0);
    const after = (await collectStatus(app.domain)).relays?.[0];
    expect(after).toMatchObject({ heldBack: false, worst: { behind: 0 } });
    await eventually(async () => /protean_outbox_relay_held_back\{[^}]*\} 0/.test(await metrics()), 5_000);
  }, 90_000);
});
