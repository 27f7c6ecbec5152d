/**
 * The consumer guarantees end to end, written once for every broker and both tiers:
 * `protean-ts server --workers 3` on PostgreSQL and a broker (Redis, NATS JetStream or RabbitMQ),
 * many events of many keys, one worker SIGKILLed and (Redis, NATS) another losing acks on purpose,
 * and a handler with no dedup or ordering code of its own. Every key's effects must come out
 * exactly once each and in the key's order: that is the inbox and the KeyScheduler, nothing else.
 * On Redis what the killed worker held is taken over (logged); JetStream redelivers it (after
 * ack_wait) and the unacked messages (after claim_idle_ms) to whichever worker pulls next;
 * RabbitMQ hands it back to the group queue when the worker's connection drops.
 * Sizes and brokers: consumer-guarantees-size.ts (GUARANTEES_PER_KEY, GUARANTEES_BROKERS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { LogWatcher, type LogLine } from '../log-watcher.js';
import { runCli, startCli } from '../run-cli.js';
import { serverProject, type ServerProject } from '../server-project.js';
import { TALLY_GROUP, TALLY_SEED } from '../tally-project.js';
import { StallGuard } from '../stall-guard.js';
import { eventually } from '../eventually.js';
import { brokerSide } from './consumer-guarantees-brokers.js';
import { guaranteesSize, PER_COMMIT, type GuaranteesBroker, type Tier } from './consumer-guarantees-size.js';

export { guaranteesBrokers } from './consumer-guarantees-size.js';

const WORKERS = 3;
const KILLED = 1;
/** Worker 2 loses every 4th of its first LOSSY_ACKS acks of the handler. */
const LOSSY_ACKS = 400;

interface TallyRow extends Record<string, unknown> {
  counter_id: string;
  seen: number[];
}

/**
 * `partitions` > 1 runs it with key affinity (`outbox.partitions`, leases of 3 s): the killed
 * worker's partitions move to the others while it is down and come back when it has restarted,
 * so partitions move twice mid-run, with messages in flight. `batchSize` > 1 handles the messages
 * in batched transactions (`batch_size`): the kill then lands mid-batch, and the batch's messages,
 * committed or not, must still come out once each.
 */
export async function describeConsumerGuarantees(broker: GuaranteesBroker, tier: Tier, partitions = 1, batchSize = 1): Promise<void> {
  const { keys: KEYS, perKey: PER_KEY } = guaranteesSize(tier, broker);
  const side = brokerSide(broker, partitions);
  const up = await servicesUp(POSTGRES, side.service);
  const shape = `${partitions > 1 ? `, ${partitions} partitions` : ''}${batchSize > 1 ? `, batches of ${batchSize}` : ''}`;
  const label = `${broker}${shape} consumer guarantees e2e`;

  describe.skipIf(!up)(`consumer guarantees on ${WORKERS} workers (${broker}${shape})`, () => {
    let project: ServerProject;
    beforeAll(async () => {
      project = await serverProject({
        ...(await side.projectOptions()),
        seed: TALLY_SEED,
        // The test asserts on order, so a gap must never be passed on time alone here.
        streamSubscription: ['gap_timeout_seconds = 120', `batch_size = ${batchSize}`],
        ...(partitions > 1 ? { outbox: [`partitions = ${partitions}`], server: ['partition_lease_seconds = 3'] } : {}),
      });
      await side.connect(project);
      const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
      expect(setup.code, setup.stderr).toBe(0);
    }, 120_000);
    afterAll(async () => {
      await side.close(project);
      await project?.drop();
    });

    const handledCount = async (): Promise<number> => {
      const [row] = await project.query<{ n: string | null }>('SELECT sum(jsonb_array_length(seen::jsonb)) AS n FROM tally');
      return Number(row?.n ?? 0);
    };

    it(`handles ${KEYS * PER_KEY} events of ${KEYS} keys exactly once each and in each key's order, through a killed worker${side.losesAcks ? ' and lost acks' : ''}`, async () => {
      const total = KEYS * PER_KEY;
      const child = startCli(['server', '--workers', String(WORKERS), '--grace', '10', '--restart-delay', '100'], {
        cwd: project.cwd,
        env: { LOSSY_ACKS: String(side.losesAcks ? LOSSY_ACKS : 0), PROTEAN_LOG_LEVEL: 'info' },
      });
      const logs = new LogWatcher(child);
      const started = Date.now();
      const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
      try {
        for (let id = 1; id <= WORKERS; id++) await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === id, 90_000, `worker ${id} ready`);
        const victim = logs.find((r) => r.msg === 'worker started' && r.workerId === KILLED)!.pid as number;
        console.log(`${label}: ${WORKERS} workers ready after ${elapsed()}; seeding ${total} events`);

        const seeding = project.seed([String(KEYS), String(PER_KEY), String(PER_COMMIT)]).then(() => console.log(`${label}: seeded after ${elapsed()}`));
        // Kill a worker once it is busy: a quarter of the effects are in.
        // Slow is fine (other test files run beside this one); stopped is not.
        const stall = new StallGuard(90_000);
        let killedAt = -1;
        let reportedAt = 0;
        for (;;) {
          const handled = await handledCount();
          if (killedAt < 0 && handled >= total / 4) {
            process.kill(victim, 'SIGKILL');
            killedAt = handled;
            console.log(`${label}: SIGKILL worker ${KILLED} (pid ${victim}) at ${handled} effects, ${elapsed()}`);
          }
          if (Date.now() - reportedAt > 5_000) {
            reportedAt = Date.now();
            console.log(`${label}: ${handled}/${total} effects after ${elapsed()}`);
          }
          if (handled >= total && killedAt >= 0 && (await side.drained(project))) break;
          stall.check(`${handled} effects, ${await side.describeGroup(project)}`, () => logs.dump());
          await new Promise((r) => setTimeout(r, 250));
        }
        await seeding;
        console.log(`${label}: drained after ${elapsed()}`);

        // The victim came back.
        expect(logs.find((r) => r.msg === 'worker crashed; restarting' && r.workerId === KILLED)).toMatchObject({ exit: 'signal SIGKILL' });
        await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === KILLED && r.pid !== victim, 60_000, `worker ${KILLED} restarted`);
        if (partitions > 1) {
          // Its partitions moved (to the others while it was down, or to its restarted self once its
          // old lease ran out), and the restarted worker reads a share.
          const crashedAt = logs.records.findIndex((r) => r.msg === 'worker crashed; restarting' && r.workerId === KILLED);
          const sharesAfter = (predicate: (r: LogLine) => boolean) =>
            logs.records.slice(crashedAt).some((r) => r.msg === 'stream partitions of this worker' && predicate(r));
          expect(sharesAfter((r) => (r.gained as string[]).length > 0)).toBe(true);
          const back = async () => sharesAfter((r) => r.workerId === KILLED && (r.partitions as number[]).length > 0);
          await eventually(back, 30_000);
        }
        if (side.logsTakeover) {
          // What it held was taken over once its heartbeat stopped, or once claim_idle_ms passed, whichever came first.
          const takeovers = ['took over messages of a consumer that stopped reporting alive', 'took over messages left pending by a stopped consumer'];
          expect(logs.find((r) => takeovers.includes(String(r.msg)))).toBeDefined();
        }
        // Worker 2 really lost acks.
        const lostAcks = logs.filter((r) => r.msg.startsWith('handled but the ack failed') && r.workerId === 2);
        if (side.losesAcks) expect(lostAcks.length).toBeGreaterThan(0);

        // What the handler wrote: every key exactly [1..PER_KEY].
        const rows = await project.query<TallyRow>('SELECT counter_id, seen FROM tally ORDER BY counter_id');
        expect(rows).toHaveLength(KEYS);
        const expected = Array.from({ length: PER_KEY }, (_, i) => i + 1);
        const wrong = rows
          .filter((row) => JSON.stringify(row.seen) !== JSON.stringify(expected))
          .map((row) => describeWrong(row.counter_id, row.seen, PER_KEY));
        expect(wrong).toEqual([]);
        const outbox = await project.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM protean_outbox GROUP BY status');
        expect(outbox).toEqual([{ status: 'published', n: String(total) }]);
        expect(await side.deadLetters(project)).toBe(0);

        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        await side.afterStop(project);
        const counters = sumCounters(logs.filter((r) => r.msg === 'subscription stopped' && r.subscription === TALLY_GROUP));
        console.log(`${label}: ${lostAcks.length} lost ack batches; ${TALLY_GROUP} counters of the workers that stopped cleanly: ${JSON.stringify(counters)}`);
        expect(counters.gapsPassed).toBe(0);
        // Batching really happened: the workers that stopped cleanly committed messages together.
        if (batchSize > 1) expect(counters.batchedMessages).toBeGreaterThan(counters.batches);
      } finally {
        // CONSUMER_E2E_LOG=<file>: every log record of the run, for a failure's post-mortem.
        if (process.env.CONSUMER_E2E_LOG)
          (await import('node:fs')).writeFileSync(process.env.CONSUMER_E2E_LOG, logs.records.map((r) => JSON.stringify(r)).join('\n'));
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 900_000);
  });
}

function describeWrong(key: string, seen: number[], perKey: number): string {
  const duplicates = seen.length - new Set(seen).size;
  const outOfOrder = seen.filter((n, i) => i > 0 && n < seen[i - 1]!).length;
  const missing = perKey - new Set(seen).size;
  return `${key}: ${seen.length} effects, ${duplicates} duplicates, ${outOfOrder} out of order, ${missing} missing`;
}

function sumCounters(records: LogLine[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const record of records) {
    for (const name of ['handled', 'duplicates', 'waits', 'late', 'gapsPassed', 'retried', 'deadLettered', 'batches', 'batchedMessages']) {
      sums[name] = (sums[name] ?? 0) + Number(record[name] ?? 0);
    }
  }
  return sums;
}
