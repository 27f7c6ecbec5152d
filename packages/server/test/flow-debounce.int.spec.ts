/**
 * Debouncing (`debounce_ms`): of a key's messages read within the window of each other the
 * handler sees only the latest; the earlier ones are acked as superseded (counted, their
 * positions passed in the key's order), and a message with no later one in its window is
 * handled. On Redis, RabbitMQ and NATS JetStream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { FLOW_BROKER_SERVICES, flowBroker, type FlowBroker, type FlowBrokerName } from './support/flow-brokers.js';
import { flowDomain, newCallProbe } from './support/flow-fixture.js';
import { createTempDatabase, type TempDatabase } from './support/real-services.js';

const WINDOW_MS = 400;
const KEYS = 10;
const PER_KEY = 5;

const BROKERS = ['redis', 'rabbitmq', 'nats'] as FlowBrokerName[];
const brokerUp = Object.fromEntries(await Promise.all(BROKERS.map(async (b) => [b, await servicesUp(POSTGRES, FLOW_BROKER_SERVICES[b])] as const)));

describe.each(BROKERS)('debounce on %s', (brokerName) => {
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
    'hands the handler only the last message of each key in its window',
    async () => {
      db = await createTempDatabase();
      broker = await flowBroker(brokerName, 'debounce');
      const probe = newCallProbe();
      const app = flowDomain(db, broker, { debounce_ms: WINDOW_MS }, probe);
      await app.setUp();
      // Each job's events commit together, so they are published and read within the window.
      const tags = await app.commitJobs(KEYS, PER_KEY);
      engine = new Engine(app.domain, { health: false });
      await engine.start();
      const caller = () => engine!.subscriptionStatuses().find((s) => s.name === 'Caller')!;
      await eventually(() => caller().handled === KEYS && caller().skipped === KEYS * (PER_KEY - 1), 30_000, 50);

      const lastOfEach = tags.filter((tag) => tag.endsWith(`:${PER_KEY}`));
      expect([...probe.handled].sort()).toEqual([...lastOfEach].sort());
      expect(caller().flow?.debounce).toEqual({ windowMs: WINDOW_MS, superseded: KEYS * (PER_KEY - 1) });
      expect(caller().deadLettered).toBe(0);

      // A message with nothing later in its window is handled, after the window.
      const jobId = lastOfEach[0]!.split(':')[0]!;
      await app.commitStep(jobId, PER_KEY + 1);
      await eventually(() => probe.handled.includes(`${jobId}:${PER_KEY + 1}`), 15_000, 20);
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS * 2));
      await app.commitStep(jobId, PER_KEY + 2);
      await eventually(() => probe.handled.includes(`${jobId}:${PER_KEY + 2}`), 15_000, 20);
      expect(probe.handled.filter((tag) => tag.startsWith(`${jobId}:`))).toEqual([`${jobId}:${PER_KEY}`, `${jobId}:${PER_KEY + 1}`, `${jobId}:${PER_KEY + 2}`]);
      expect(caller().flow?.debounce?.superseded).toBe(KEYS * (PER_KEY - 1));
    },
    60_000,
  );
});
