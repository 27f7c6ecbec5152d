/**
 * The concurrency cap of a subscription across workers (`max_concurrency`): permits with leases
 * in PostgreSQL. Three workers never run more than the cap at once together, every message is
 * handled once, and the permits are given back; a permit whose holder died (never renewed,
 * never released) is free again once its lease has run out.
 */
import { describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import { Engine } from '../src/engine/engine.js';
import { PostgresFlowLimits } from '../src/subscriptions/flow/postgres-flow-limits.js';
import { eventually } from './support/eventually.js';
import { flowBroker } from './support/flow-brokers.js';
import { flowDomain, newCallProbe } from './support/flow-fixture.js';
import { flowRun } from './support/flow-run.js';
import { createTempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);
const CAP = 2;
const WORKERS = 3;

describe.skipIf(!up)('concurrency cap across workers (PostgreSQL permits)', () => {
  const run = flowRun();
  const engines = run.engines;

  it(`runs at most ${CAP} messages at once across ${WORKERS} workers, each once, and gives the permits back`, async () => {
    const db = (run.db = await createTempDatabase());
    const broker = (run.broker = await flowBroker('redis', 'cap'));
    const probe = newCallProbe(60);
    // Small reads, so the first worker to start does not take every message before the others join.
    const apps = Array.from({ length: WORKERS }, () => flowDomain(db, broker, { max_concurrency: CAP }, probe, {}, { messages_per_tick: 2 }));
    for (const app of apps) await app.setUp();
    const tags = await apps[0]!.commitJobs(40, 1);
    for (const [i, app] of apps.entries()) engines.push(new Engine(app.domain, { health: false, workerId: i + 1 }));
    await Promise.all(engines.map((engine) => engine.start()));
    const statuses = () => engines.map((engine) => engine.subscriptionStatuses().find((s) => s.name === 'Caller')!);
    await eventually(() => statuses().reduce((total, s) => total + s.handled, 0) === tags.length, 60_000, 50);

    expect([...probe.handled].sort()).toEqual([...tags].sort());
    expect(probe.maxRunning).toBeLessThanOrEqual(CAP);
    // The cap was reached (the test would prove nothing if the workers never overlapped).
    expect(probe.maxRunning).toBe(CAP);
    expect(statuses().filter((s) => s.handled > 0).length).toBeGreaterThan(1);
    expect(statuses()[0]!.flow?.concurrencyCap).toEqual({ max: CAP, held: 0, waiting: 0 });
    const limits = new PostgresFlowLimits(apps[0]!.domain.providers.get('default') as PostgresProvider);
    expect(await limits.heldPermits('Flow:Caller')).toBe(0);
  }, 90_000);

  it("frees a dead holder's permit when its lease runs out", async () => {
    const db = (run.db = await createTempDatabase());
    const provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await provider.connect();
    try {
      const limits = new PostgresFlowLimits(provider);
      expect(await limits.takePermit('s', 2, 'dead-worker/1', 800)).toBe(0);
      expect(await limits.takePermit('s', 2, 'live-worker/1', 60_000)).toBe(1);
      expect(await limits.takePermit('s', 2, 'live-worker/2', 60_000)).toBeNull();
      expect(await limits.heldPermits('s')).toBe(2);
      // The live holder renews; the dead one does not, and its permit comes free after the lease.
      expect(await limits.renewPermits('s', ['live-worker/1'], 60_000)).toBe(1);
      await eventually(async () => (await limits.takePermit('s', 2, 'live-worker/2', 60_000)) === 0, 5_000, 100);
      expect(await limits.heldPermits('s')).toBe(2);
      await limits.releasePermit('s', 1, 'live-worker/1');
      // A release names its holder: a stale release of a slot another holder took is a no-op.
      await limits.releasePermit('s', 0, 'dead-worker/1');
      expect(await limits.heldPermits('s')).toBe(1);
    } finally {
      await provider.close();
    }
  }, 30_000);
});
