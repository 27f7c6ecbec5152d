/**
 * The circuit breaker of a subscription on Redis, RabbitMQ and NATS JetStream: a handler whose
 * dependency is down for a while (3 s here; 30 s in the load tier) opens its circuit after
 * `circuit_failure_threshold` failures in a row, holds its messages (no retries used up, nothing
 * dead-lettered), probes after `circuit_open_seconds`, and closes once the dependency is back;
 * every message is then handled exactly once. The state shows in the status and in /readyz.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type ConfigOverrides } from '@protean-ts/core';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { collectStatus } from '../src/status/collect-status.js';
import { eventually } from './support/eventually.js';
import { FLOW_BROKER_SERVICES, flowBroker, type FlowBroker, type FlowBrokerName } from './support/flow-brokers.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const LOAD = process.env.PROTEAN_TEST_TIER === 'load';
const OUTAGE_MS = LOAD ? 30_000 : 3_000;
const KEYS = LOAD ? 100 : 20;
const EVENTS_PER_KEY = 5;
const THRESHOLD = 3;

class DependencyDown extends Error {
  constructor() {
    super('the payment gateway does not answer');
    this.name = 'DependencyDown';
  }
}

interface Probe {
  /** Until when (epoch ms) the dependency fails; 0 before the test starts it. */
  downUntil: number;
  failures: number;
  /** Successful runs per `jobId:n`. */
  handled: Map<string, number>;
}

function makeDomain(db: TempDatabase, broker: FlowBroker, probe: Probe) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-circuit-'));
  const config: ConfigOverrides = {
    event_processing: 'async',
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
    brokers: { default: broker.settings as never },
    server: {
      health: { port: 0 },
      tick_interval: 0.05,
      stream_subscription: { blocking_timeout_ms: 50, max_retries: 3, retry_delay_seconds: 0.05 },
      flow_control: { Caller: { circuit_failure_threshold: THRESHOLD, circuit_open_seconds: 0.5, circuit_errors: ['DependencyDown'] } },
    },
    outbox: { tick_interval: 0.05 },
  };
  const domain = new Domain('Circuit', { root, config });

  @domain.aggregate()
  class Job extends BaseAggregate {
    @field.integer({ required: true }) steps!: number;
  }

  @domain.event({ partOf: Job })
  class Stepped extends BaseEvent {
    @field.identifier({ required: true }) jobId!: string;
    @field.integer({ required: true }) n!: number;
  }

  @domain.eventHandler({ partOf: Job })
  class Caller extends BaseEventHandler {
    @handle(Stepped) async onStepped(event: Stepped): Promise<void> {
      if (Date.now() < probe.downUntil) {
        probe.failures += 1;
        throw new DependencyDown();
      }
      const tag = `${event.jobId}:${event.n}`;
      probe.handled.set(tag, (probe.handled.get(tag) ?? 0) + 1);
    }
  }

  async function commitJobs(): Promise<string[]> {
    const tags: string[] = [];
    for (let k = 0; k < KEYS; k += 1) {
      const job = Job.create({ steps: 0 });
      for (let n = 1; n <= EVENTS_PER_KEY; n += 1) {
        job.raise(Stepped.create({ jobId: job.id, n }));
        tags.push(`${job.id}:${n}`);
      }
      await domain.repositoryFor(Job).add(job);
    }
    return tags;
  }
  return { domain, commitJobs, Caller };
}

const BROKERS = ['redis', 'rabbitmq', 'nats'] as FlowBrokerName[];
const brokerUp = Object.fromEntries(await Promise.all(BROKERS.map(async (b) => [b, await servicesUp(POSTGRES, FLOW_BROKER_SERVICES[b])] as const)));

describe.each(BROKERS)('circuit breaker on %s', (brokerName) => {
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
    'opens while the dependency is down and closes after it returns: 0 dead letters, every message handled once',
    async () => {
      db = await createTempDatabase();
      broker = await flowBroker(brokerName, 'circuit');
      const probe: Probe = { downUntil: 0, failures: 0, handled: new Map() };
      const app = makeDomain(db, broker, probe);
      await app.domain.init();
      for (const provider of app.domain.providers.values()) await provider.setupSchema(app.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
      probe.downUntil = Date.now() + OUTAGE_MS;
      const tags = await app.commitJobs();
      engine = new Engine(app.domain, { health: { port: 0 } });
      await engine.start();
      const caller = () => engine!.subscriptionStatuses().find((s) => s.name === 'Caller')!;

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
      // Every message handled exactly once, none lost.
      expect([...probe.handled.keys()].sort()).toEqual([...tags].sort());
      expect([...probe.handled.values()].every((runs) => runs === 1)).toBe(true);
      // While open, messages wait rather than run: the failures are the ones in flight when it
      // opened plus one probe per open period, far fewer than every message's every attempt.
      const probes = Math.ceil(OUTAGE_MS / 500) + 2;
      expect(probe.failures).toBeLessThanOrEqual(KEYS + probes);
      expect(probe.failures).toBeGreaterThanOrEqual(THRESHOLD);
    },
    OUTAGE_MS + 90_000,
  );
});
