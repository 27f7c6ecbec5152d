/**
 * A subscription retries a failed message `retry_delay_seconds` after the failure by the
 * domain's clock, on PostgreSQL and Redis: with a 60 s delay the retry waits while the clock
 * stands, and comes at once when the clock is moved past it (a test's ManualClock), without the
 * real minute. A clock left standing never holds a retry longer than the real delay (unit test
 * of sleepOnClock).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeNotes, newProbe, notesConfig, setupTables, type NotesProbe } from './support/notes-fixture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)("a subscription's retry follows domain.clock (PostgreSQL and Redis)", () => {
  let db: TempDatabase;
  let probe: NotesProbe;
  let engine: Engine | undefined;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(async () => {
    db = await createTempDatabase();
    probe = newProbe();
    logs = captureLogs();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = undefined;
    logs.restore();
    await db.drop();
  });

  it('retries a failed message once the clock has moved retry_delay_seconds on, not before', async () => {
    const app = makeNotes(
      'RetryClock',
      notesConfig(db, { uri: REDIS_URI, stream_prefix: uniquePrefix('retry-clock') }, { streamSubscription: { max_retries: 1, retry_delay_seconds: 60 } }),
      probe,
    );
    let now = Date.parse('2030-01-01T00:00:00Z');
    app.domain.clock = { now: () => now };
    await setupTables(app.domain);
    probe.onNoted = () => {
      if (probe.runs.length === 1) throw new Error('fails the first time (test)');
    };
    engine = new Engine(app.domain, { health: false });
    await engine.start();
    await app.commit(null, [1]);

    await eventually(() => logs.records.some((r) => r.msg === 'handler failed; retrying'), 15_000);
    expect(probe.runs).toEqual([1]);
    // The clock stands: 59 s of it pass, a second of real time, and the retry still waits.
    now += 59_000;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(probe.runs).toEqual([1]);
    expect(probe.handled).toEqual([]);

    now += 1_000;
    const moved = Date.now();
    await eventually(() => probe.handled.length === 1, 10_000);
    expect(probe.runs).toEqual([1, 1]);
    // Within a few rechecks of the move, not the real minute the delay would take.
    expect(Date.now() - moved).toBeLessThan(5_000);
    const effects = engine.subscriptionStatuses().find((s) => s.name === 'Effects')!;
    expect(effects.retried).toBe(1);
  }, 60_000);
});
