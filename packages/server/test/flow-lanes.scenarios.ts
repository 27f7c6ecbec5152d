/**
 * Priority lanes (`[outbox.lanes]`), run by flow-lanes.int.spec.ts (fast tier) and
 * flow-lanes.load.spec.ts (load tier): a backfill committed in the `backfill` lane goes to its own
 * stream and is read at a bounded share, so a steady live stream keeps its handling delay under
 * a bound while the backfill drains; and a key whose earlier event is in the backfill lane and
 * later one in live is still handled in order (the live one waits for its predecessor through the
 * inbox). On Redis, RabbitMQ and NATS JetStream. Fast tier: a backfill of 1,000 events; load tier
 * (`npm run test:load`): 20,000, as issue 25 asks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { FLOW_BROKER_SERVICES, flowBroker, type FlowBroker, type FlowBrokerName } from './support/flow-brokers.js';
import { lanesDomain, newLaneProbe, percentile } from './support/lanes-fixture.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const LIVE_EVERY_MS = 100;
const LANES = { enabled: true, names: ['backfill'], share: 0.25 };
const BROKERS = ['redis', 'rabbitmq', 'nats'] as FlowBrokerName[];
const brokerUp = Object.fromEntries(await Promise.all(BROKERS.map(async (b) => [b, await servicesUp(POSTGRES, FLOW_BROKER_SERVICES[b])] as const)));

export function describeLaneScenarios(tier: 'fast' | 'load'): void {
  const LOAD = tier === 'load';
  const FEEDS = LOAD ? 1000 : 100;
  const PER_FEED = LOAD ? 20 : 10;
  const BACKFILL = FEEDS * PER_FEED;
  const WORK_MS = LOAD ? 2 : 10;
  /** The live lane's p99 handling delay while the backfill drains (docs/flow-control.md gives the bound). */
  const LIVE_P99_BOUND_MS = LOAD ? 3000 : 2000;
  describe.each(BROKERS)(`priority lanes on %s (${tier} tier)`, (brokerName) => {
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

    it.skipIf(!brokerUp[brokerName])(
      `keeps the live lane's p99 delay under ${LIVE_P99_BOUND_MS} ms while a backfill of ${BACKFILL} events drains`,
      async () => {
        db = await createTempDatabase();
        broker = await flowBroker(brokerName, 'lanes');
        const probe = newLaneProbe(WORK_MS);
        const app = lanesDomain(db, broker, probe, LANES);
        await app.setUp();
        await app.commitBackfill(FEEDS, PER_FEED);
        engine = new Engine(app.domain, { health: false });
        await engine.start();
        const recorder = () => engine!.subscriptionStatuses().find((s) => s.name === 'Recorder')!;
        expect(recorder().lanes).toEqual(['backfill']);

        // A steady live stream for as long as the backfill drains.
        let liveSent = 0;
        const drainDeadline = Date.now() + (LOAD ? 600_000 : 120_000);
        while (probe.backfillHandled < BACKFILL && Date.now() < drainDeadline) {
          await app.commitLive();
          liveSent += 1;
          await new Promise((resolve) => setTimeout(resolve, LIVE_EVERY_MS));
        }
        expect(probe.backfillHandled).toBe(BACKFILL);
        await eventually(() => probe.liveDelays.length === liveSent, 30_000, 20);

        // The live stream ran beside the backfill for a while (the backfill did not drain at once).
        expect(liveSent).toBeGreaterThanOrEqual(10);
        const p99 = percentile(probe.liveDelays, 99);
        expect(p99, `live delays p50 ${percentile(probe.liveDelays, 50)} ms, p99 ${p99} ms over ${liveSent} live events`).toBeLessThan(LIVE_P99_BOUND_MS);
        expect(recorder().handled).toBe(BACKFILL + liveSent);
        expect(recorder().deadLettered).toBe(0);
      },
      LOAD ? 900_000 : 150_000,
    );

    it.skipIf(!brokerUp[brokerName])(
      'handles a key in order when its earlier event is in the backfill lane and its later one in live',
      async () => {
        db = await createTempDatabase();
        broker = await flowBroker(brokerName, 'lane-order');
        const probe = newLaneProbe(10);
        const app = lanesDomain(db, broker, probe, LANES);
        await app.setUp();
        // A queue in the backfill lane, then the key's first event behind it, and its second in live.
        await app.commitBackfill(30, 10);
        const key = await app.commitFirst('backfill');
        await app.commitNext(key, 2, 'live');
        engine = new Engine(app.domain, { health: false });
        await engine.start();
        const recorder = () => engine!.subscriptionStatuses().find((s) => s.name === 'Recorder')!;
        await eventually(() => probe.orderOf.get(key)?.length === 2 && recorder().handled === 302, 60_000, 20);

        expect(probe.orderOf.get(key)).toEqual([1, 2]);
        // The live event arrived first and waited for its predecessor in the backfill lane.
        expect(recorder().waits).toBeGreaterThan(0);
        expect(recorder().late).toBe(0);
        expect(recorder().gapsPassed).toBe(0);
      },
      90_000,
    );
  });
}
