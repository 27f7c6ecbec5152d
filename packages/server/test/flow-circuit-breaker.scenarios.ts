/**
 * The circuit breaker of a subscription on Redis, RabbitMQ and NATS JetStream: a handler whose
 * dependency is down for a while (3 s in the fast tier, flow-circuit-breaker.int.spec.ts; 30 s in
 * the load tier, flow-circuit-breaker.load.spec.ts) opens its circuit after
 * `circuit_failure_threshold` failures in a row, holds its messages (no retries used up, nothing
 * dead-lettered), probes after `circuit_open_seconds`, and closes once the dependency is back;
 * every message is then handled exactly once. The state shows in the status and in /readyz.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { collectStatus } from '../src/status/collect-status.js';
import { eventually } from './support/eventually.js';
import { flowBroker } from './support/flow-brokers.js';
import { flowDomain, newCallProbe } from './support/flow-fixture.js';
import { FLOW_BROKERS, flowBrokersUp, flowRun } from './support/flow-run.js';
import { createTempDatabase } from './support/real-services.js';

const SIZES = {
  fast: { OUTAGE_MS: 3_000, KEYS: 20 },
  load: { OUTAGE_MS: 30_000, KEYS: 100 },
} as const;
const EVENTS_PER_KEY = 5;
const THRESHOLD = 3;
const FLOW = { circuit_failure_threshold: THRESHOLD, circuit_open_seconds: 0.5, circuit_errors: ['DependencyDown'] };

class DependencyDown extends Error {
  constructor() {
    super('the payment gateway does not answer');
    this.name = 'DependencyDown';
  }
}

export async function describeCircuitBreaker(size: keyof typeof SIZES): Promise<void> {
  const { OUTAGE_MS, KEYS } = SIZES[size];
  const brokerUp = await flowBrokersUp();
  describe.each(FLOW_BROKERS)('circuit breaker on %s', (brokerName) => {
    const run = flowRun();

    it.skipIf(!brokerUp[brokerName])(
      'opens while the dependency is down and closes after it returns: 0 dead letters, every message handled once',
      async () => {
        const db = (run.db = await createTempDatabase());
        const broker = (run.broker = await flowBroker(brokerName, 'circuit'));
        const probe = newCallProbe();
        let failures = 0;
        const app = flowDomain(db, broker, FLOW, probe);
        await app.setUp();
        const downUntil = Date.now() + OUTAGE_MS;
        probe.beforeRun = () => {
          if (Date.now() < downUntil) {
            failures += 1;
            throw new DependencyDown();
          }
        };
        const tags = await app.commitJobs(KEYS, EVENTS_PER_KEY);
        const engine = new Engine(app.domain, { health: { port: 0 } });
        run.engines.push(engine);
        await engine.start();
        const caller = () => engine.subscriptionStatuses().find((s) => s.name === 'Caller')!;

        const open = await eventually(() => caller().flow?.circuit?.state === 'open' && caller(), OUTAGE_MS);
        expect(open.deadLettered).toBe(0);
        const base = `http://127.0.0.1:${engine.boundHealthPort}`;
        const readyz = (await (await fetch(`${base}/readyz`)).json()) as { status: string; notes?: Record<string, string> };
        // Recorded in PostgreSQL for other processes (protean-ts status, the Observatory).
        const recorded = await eventually(async () => {
          const backlog = (await collectStatus(app.domain)).subscriptions.find((b) => b.subscription === 'Caller');
          return backlog?.source === 'stream' && backlog.circuits?.length ? backlog.circuits : null;
        }, 5_000);
        expect(recorded[0]).toMatchObject({ worker: engine.consumer, lastError: 'DependencyDown: the payment gateway does not answer' });
        expect(['open', 'half-open']).toContain(recorded[0]!.state);
        // Ready (the dependency is down, not the worker), with a note saying so.
        expect(readyz.status).toBe('ready');
        expect(readyz.notes?.['subscription:Caller']).toMatch(/circuit (open|half-open) \(DependencyDown: the payment gateway does not answer\)/);
        expect(await (await fetch(`${base}/metrics`)).text()).toMatch(
          /protean_subscription_circuit_state\{[^}]*messaging_consumer_group_name="Caller"[^}]*\} [12]/,
        );

        await eventually(() => caller().handled === tags.length, OUTAGE_MS + 30_000, 50);
        const status = caller();
        expect(status.deadLettered).toBe(0);
        expect(status.leftPending).toBe(0);
        expect(status.dropped).toBe(0);
        expect(status.flow?.circuit?.state).toBe('closed');
        expect(status.flow?.circuit?.opened).toBeGreaterThanOrEqual(1);
        const metrics = await (await fetch(`${base}/metrics`)).text();
        expect(metrics).toMatch(/protean_subscription_circuit_state\{[^}]*\} 0/);
        expect(metrics).toMatch(new RegExp(`protean_subscription_circuit_opened_total\\{[^}]*\\} ${status.flow!.circuit!.opened}`));
        const closed = (await collectStatus(app.domain)).subscriptions.find((b) => b.subscription === 'Caller');
        expect(closed?.source === 'stream' && closed.circuits).toBeFalsy();
        // Every message handled exactly once (the tags are unique), none lost.
        expect([...probe.handled].sort()).toEqual([...tags].sort());
        // While open, messages wait rather than run: the failures are the ones in flight when it
        // opened plus one probe per open period, far fewer than every message's every attempt.
        const probes = Math.ceil(OUTAGE_MS / 500) + 2;
        expect(failures).toBeLessThanOrEqual(KEYS + probes);
        expect(failures).toBeGreaterThanOrEqual(THRESHOLD);
      },
      OUTAGE_MS + 90_000,
    );
  });
}
