/**
 * Debouncing (`debounce_ms`): of a key's messages read within the window of each other the
 * handler sees only the latest; the earlier ones are acked as superseded (counted, their
 * positions passed in the key's order), and a message with no later one in its window is
 * handled. On Redis, RabbitMQ and NATS JetStream.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { flowBroker } from './support/flow-brokers.js';
import { flowDomain, newCallProbe } from './support/flow-fixture.js';
import { FLOW_BROKERS, flowBrokersUp, flowRun } from './support/flow-run.js';
import { createTempDatabase } from './support/real-services.js';

const WINDOW_MS = 400;
const KEYS = 10;
const PER_KEY = 5;

const brokerUp = await flowBrokersUp();

describe.each(FLOW_BROKERS)('debounce on %s', (brokerName) => {
  const run = flowRun();

  /** A debounced Caller on a database and broker of the test's own, and `start` for its engine once the jobs are committed. */
  async function debouncedApp(label: string) {
    const db = (run.db = await createTempDatabase());
    const broker = (run.broker = await flowBroker(brokerName, label));
    const probe = newCallProbe();
    const app = flowDomain(db, broker, { debounce_ms: WINDOW_MS }, probe);
    await app.setUp();
    const start = async () => {
      const engine = new Engine(app.domain, { health: false });
      run.engines.push(engine);
      await engine.start();
      return () => engine.subscriptionStatuses().find((s) => s.name === 'Caller')!;
    };
    return { app, probe, start };
  }

  it.skipIf(!brokerUp[brokerName])(
    'hands the handler only the last message of each key in its window',
    async () => {
      const { app, probe, start } = await debouncedApp('debounce');
      // Each job's events commit together, so they are published and read within the window.
      const tags = await app.commitJobs(KEYS, PER_KEY);
      const caller = await start();
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

  it.skipIf(!brokerUp[brokerName])(
    'a later message of a type the handler ignores neither supersedes the latest one it handles nor counts as superseded',
    async () => {
      const { app, probe, start } = await debouncedApp('debounce-ignored');
      // Each job: Stepped 1..PER_KEY, then a Noted (which Caller does not handle), in one transaction.
      const tags = await app.commitJobs(KEYS, PER_KEY, { thenNote: true });
      const caller = await start();
      // Per key: PER_KEY - 1 superseded, the last Stepped handled, the Noted skipped.
      await eventually(() => caller().handled + caller().skipped === KEYS * (PER_KEY + 1), 30_000, 50);

      expect([...probe.handled].sort()).toEqual(tags.filter((tag) => tag.endsWith(`:${PER_KEY}`)).sort());
      expect(caller().flow?.debounce?.superseded).toBe(KEYS * (PER_KEY - 1));
    },
    60_000,
  );
});
