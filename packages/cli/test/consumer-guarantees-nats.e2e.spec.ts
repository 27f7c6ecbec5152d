/**
 * The consumer guarantees end to end on NATS JetStream: `protean-ts server --workers 3` on
 * PostgreSQL with NATS as the default broker, 10,000 events of 50 keys, one worker SIGKILLed and
 * another losing acks on purpose, and a handler with no dedup or ordering code of its own. Every
 * key's effects must come out exactly once each and in the key's order. JetStream redelivers
 * what the killed worker held (after ack_wait) and the unacked messages (after claim_idle_ms) to
 * whichever worker pulls next; the inbox and the KeyScheduler do the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS, POSTGRES, servicesUp } from '@protean-ts/core/testing';
import { NatsBroker } from '@protean-ts/nats';
import { LogWatcher } from './log-watcher.js';
import { deleteNatsStreams } from './nats-cleanup.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { TALLY_GROUP, TALLY_NATS, TALLY_SEED, tallyDomain } from './tally-project.js';
import { StallGuard } from './stall-guard.js';

const KEYS = 50;
const PER_KEY = 200;
const PER_COMMIT = 20;
const WORKERS = 3;
const KILLED = 1;
const LOSSY_ACKS = 400;
const STREAM = 'ticks::counter';

const up = await servicesUp(POSTGRES, NATS);

interface TallyRow extends Record<string, unknown> {
  counter_id: string;
  seen: number[];
}

describe.skipIf(!up)(`consumer guarantees on ${WORKERS} workers with NATS JetStream`, () => {
  let project: ServerProject;
  let broker: NatsBroker;
  beforeAll(async () => {
    project = await serverProject({
      broker: 'nats',
      domain: tallyDomain(TALLY_NATS),
      seed: TALLY_SEED,
      link: ['nats'],
      brokerProvider: TALLY_NATS.provider,
      streamSubscription: ['gap_timeout_seconds = 120'],
    });
    broker = new NatsBroker('check', { provider: 'nats', uri: 'nats://127.0.0.1:4222', stream_prefix: project.streamPrefix });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await broker?.close();
    await project?.drop();
    if (project) await deleteNatsStreams(project.streamPrefix);
  });

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
      console.log(`nats consumer guarantees e2e: ${WORKERS} workers ready after ${elapsed()}; seeding ${total} events`);
      const seeding = project.seed([String(KEYS), String(PER_KEY), String(PER_COMMIT)]);
      // Slow is fine (CI runs this beside the shop's e2e); stopped is not.
      const stall = new StallGuard(90_000);
      let killedAt = -1;
      let reportedAt = 0;
      for (;;) {
        const handled = await handledCount();
        if (killedAt < 0 && handled >= total / 4) {
          process.kill(victim, 'SIGKILL');
          killedAt = handled;
          console.log(`nats consumer guarantees e2e: SIGKILL worker ${KILLED} (pid ${victim}) at ${handled} effects, ${elapsed()}`);
        }
        if (Date.now() - reportedAt > 5_000) {
          reportedAt = Date.now();
          console.log(`nats consumer guarantees e2e: ${handled}/${total} effects after ${elapsed()}`);
        }
        const status = await broker.groupStatus(STREAM, TALLY_GROUP);
        if (handled >= total && killedAt >= 0 && status.pending === 0 && status.lag === 0) break;
        stall.check(`${handled} effects, ${JSON.stringify(status)}`, () => logs.dump());
        await new Promise((r) => setTimeout(r, 250));
      }
      await seeding;
      console.log(`nats consumer guarantees e2e: drained after ${elapsed()}`);

      expect(logs.find((r) => r.msg === 'worker crashed; restarting' && r.workerId === KILLED)).toMatchObject({ exit: 'signal SIGKILL' });
      await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === KILLED && r.pid !== victim, 60_000, `worker ${KILLED} restarted`);
      const lostAcks = logs.filter((r) => r.msg.startsWith('handled but the ack failed') && r.workerId === 2);
      expect(lostAcks.length).toBeGreaterThan(0);

      const rows = await project.query<TallyRow>('SELECT counter_id, seen FROM tally ORDER BY counter_id');
      expect(rows).toHaveLength(KEYS);
      const expected = Array.from({ length: PER_KEY }, (_, i) => i + 1);
      const wrong = rows.filter((row) => JSON.stringify(row.seen) !== JSON.stringify(expected)).map((row) => `${row.counter_id}: ${row.seen.length} effects`);
      expect(wrong).toEqual([]);
      const outbox = await project.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM protean_outbox GROUP BY status');
      expect(outbox).toEqual([{ status: 'published', n: String(total) }]);
      expect(await broker.listDeadLetters(STREAM)).toEqual([]);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      console.log(`nats consumer guarantees e2e: ${lostAcks.length} lost ack batches; done after ${elapsed()}`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 900_000);
});
