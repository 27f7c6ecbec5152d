/**
 * The consumer guarantees end to end: `protean-ts server --workers 3` on PostgreSQL and Redis,
 * 20,000 events of 50 keys, one worker SIGKILLed and another losing acks on purpose, and a
 * handler with no dedup or ordering code of its own. Every key's effects must come out exactly
 * once each and in the key's order: that is the inbox and the KeyScheduler, nothing else.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/core/testing';
import { LogWatcher, type LogLine } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { TALLY_DOMAIN, TALLY_GROUP, TALLY_SEED } from './tally-project.js';
import { StallGuard } from './stall-guard.js';

const KEYS = 50;
const PER_KEY = 400;
const PER_COMMIT = 20;
const WORKERS = 3;
const KILLED = 1;
/** Worker 2 loses every 4th of its first LOSSY_ACKS acks of the handler. */
const LOSSY_ACKS = 400;

const up = await servicesUp(POSTGRES, REDIS);

interface TallyRow extends Record<string, unknown> {
  counter_id: string;
  seen: number[];
}

describe.skipIf(!up)(`consumer guarantees on ${WORKERS} workers`, () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({
      domain: TALLY_DOMAIN,
      seed: TALLY_SEED,
      link: ['redis'],
      brokerProvider: 'lossy-ack-redis',
      // The test asserts on order, so a gap must never be passed on time alone here.
      streamSubscription: ['gap_timeout_seconds = 120'],
    });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
  });

  const pendingOf = (group: string): number => {
    const reply = execFileSync('redis-cli', ['XPENDING', `${project.streamPrefix}ticks::counter`, group], { encoding: 'utf8' });
    return Number(reply.split('\n')[0]);
  };
  const handledCount = async (): Promise<number> => {
    const [row] = await project.query<{ n: string | null }>('SELECT sum(jsonb_array_length(seen::jsonb)) AS n FROM tally');
    return Number(row?.n ?? 0);
  };

  it(`handles ${KEYS * PER_KEY} events of ${KEYS} keys exactly once each and in each key's order, through a killed worker and lost acks`, async () => {
    const total = KEYS * PER_KEY;
    const child = startCli(['server', '--workers', String(WORKERS), '--grace', '10', '--restart-delay', '100'], {
      cwd: project.cwd,
      env: { LOSSY_ACKS: String(LOSSY_ACKS), PROTEAN_LOG_LEVEL: 'info' },
    });
    const logs = new LogWatcher(child);
    const started = Date.now();
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    try {
      for (let id = 1; id <= WORKERS; id++) await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === id, 90_000, `worker ${id} ready`);
      const victim = logs.find((r) => r.msg === 'worker started' && r.workerId === KILLED)!.pid as number;
      console.log(`consumer guarantees e2e: ${WORKERS} workers ready after ${elapsed()}; seeding ${total} events`);

      const seeding = project
        .seed([String(KEYS), String(PER_KEY), String(PER_COMMIT)])
        .then(() => console.log(`consumer guarantees e2e: seeded after ${elapsed()}`));
      // Kill a worker once it is busy: a quarter of the effects are in.
      // Slow is fine (CI runs this beside the shop's e2e); stopped is not.
      const stall = new StallGuard(90_000);
      let killedAt = -1;
      let reportedAt = 0;
      for (;;) {
        const handled = await handledCount();
        if (killedAt < 0 && handled >= total / 4) {
          process.kill(victim, 'SIGKILL');
          killedAt = handled;
          console.log(`consumer guarantees e2e: SIGKILL worker ${KILLED} (pid ${victim}) at ${handled} effects, ${elapsed()}`);
        }
        if (Date.now() - reportedAt > 5_000) {
          reportedAt = Date.now();
          console.log(`consumer guarantees e2e: ${handled}/${total} effects after ${elapsed()}`);
        }
        if (handled >= total && killedAt >= 0 && pendingOf(TALLY_GROUP) === 0) break;
        stall.check(`${handled} effects, ${pendingOf(TALLY_GROUP)} pending`, () => logs.dump());
        await new Promise((r) => setTimeout(r, 250));
      }
      await seeding;
      console.log(`consumer guarantees e2e: drained after ${elapsed()}`);

      // The victim came back, and what it held was taken over.
      expect(logs.find((r) => r.msg === 'worker crashed; restarting' && r.workerId === KILLED)).toMatchObject({ exit: 'signal SIGKILL' });
      await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === KILLED && r.pid !== victim, 60_000, `worker ${KILLED} restarted`);
      // Taken over once its heartbeat stopped, or once claim_idle_ms passed, whichever came first.
      const takeovers = ['took over messages of a consumer that stopped reporting alive', 'took over messages left pending by a stopped consumer'];
      expect(logs.find((r) => takeovers.includes(String(r.msg)))).toBeDefined();
      // Worker 2 really lost acks.
      const lostAcks = logs.filter((r) => r.msg.startsWith('handled but the ack failed') && r.workerId === 2);
      expect(lostAcks.length).toBeGreaterThan(0);

      // What the handler wrote: every key exactly [1..PER_KEY].
      const rows = await project.query<TallyRow>('SELECT counter_id, seen FROM tally ORDER BY counter_id');
      expect(rows).toHaveLength(KEYS);
      const expected = Array.from({ length: PER_KEY }, (_, i) => i + 1);
      const wrong = rows.filter((row) => JSON.stringify(row.seen) !== JSON.stringify(expected)).map((row) => describeWrong(row.counter_id, row.seen));
      expect(wrong).toEqual([]);
      const outbox = await project.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM protean_outbox GROUP BY status');
      expect(outbox).toEqual([{ status: 'published', n: String(total) }]);
      expect(execFileSync('redis-cli', ['XLEN', `${project.streamPrefix}ticks::counter:dlq`], { encoding: 'utf8' }).trim()).toBe('0');

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const counters = sumCounters(logs.filter((r) => r.msg === 'subscription stopped' && r.subscription === TALLY_GROUP));
      console.log(
        `consumer guarantees e2e: ${lostAcks.length} lost ack batches; ${TALLY_GROUP} counters of the workers that stopped cleanly: ${JSON.stringify(counters)}`,
      );
      expect(counters.gapsPassed).toBe(0);
    } finally {
      // CONSUMER_E2E_LOG=<file>: every log record of the run, for a failure's post-mortem.
      if (process.env.CONSUMER_E2E_LOG)
        (await import('node:fs')).writeFileSync(process.env.CONSUMER_E2E_LOG, logs.records.map((r) => JSON.stringify(r)).join('\n'));
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 900_000);
});

function describeWrong(key: string, seen: number[]): string {
  const duplicates = seen.length - new Set(seen).size;
  const outOfOrder = seen.filter((n, i) => i > 0 && n < seen[i - 1]!).length;
  const missing = PER_KEY - new Set(seen).size;
  return `${key}: ${seen.length} effects, ${duplicates} duplicates, ${outOfOrder} out of order, ${missing} missing`;
}

function sumCounters(records: LogLine[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const record of records) {
    for (const name of ['handled', 'duplicates', 'waits', 'late', 'gapsPassed', 'retried', 'deadLettered']) {
      sums[name] = (sums[name] ?? 0) + Number(record[name] ?? 0);
    }
  }
  return sums;
}
