/**
 * The consumer guarantees end to end, written once for every broker and both tiers:
 * `protean-ts server --workers 3` on PostgreSQL and a broker (Redis or NATS JetStream), many
 * events of 50 keys, one worker SIGKILLed and another losing acks on purpose, and a handler with
 * no dedup or ordering code of its own. Every key's effects must come out exactly once each and
 * in the key's order: that is the inbox and the KeyScheduler, nothing else. On Redis what the
 * killed worker held is taken over (logged); JetStream redelivers it (after ack_wait) and the
 * unacked messages (after claim_idle_ms) to whichever worker pulls next.
 * Sizes: GUARANTEES_PER_KEY (events per key: 40 fast; 400 on Redis and 200 on NATS in the load
 * tier) and GUARANTEES_BROKERS (`redis,nats`).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS, POSTGRES, REDIS, servicesUp } from '@protean-ts/core/testing';
import { NatsBroker } from '@protean-ts/nats';
import { LogWatcher, type LogLine } from '../log-watcher.js';
import { deleteNatsStreams } from '../nats-cleanup.js';
import { runCli, startCli } from '../run-cli.js';
import { serverProject, type ServerProject, type ServerProjectOptions } from '../server-project.js';
import { TALLY_DOMAIN, TALLY_GROUP, TALLY_NATS, TALLY_SEED, tallyDomain } from '../tally-project.js';
import { StallGuard } from '../stall-guard.js';

export type Tier = 'fast' | 'load';
export type GuaranteesBroker = 'redis' | 'nats';

const KEYS = 50;
const PER_COMMIT = 20;
const WORKERS = 3;
const KILLED = 1;
/** Worker 2 loses every 4th of its first LOSSY_ACKS acks of the handler. */
const LOSSY_ACKS = 400;
const STREAM = 'ticks::counter';
const BROKERS: readonly GuaranteesBroker[] = ['redis', 'nats'];

/** GUARANTEES_BROKERS (comma-separated), default every broker the scenario knows. */
export function guaranteesBrokers(): GuaranteesBroker[] {
  const raw = process.env.GUARANTEES_BROKERS;
  if (raw === undefined || raw === '') return [...BROKERS];
  const kinds = raw.split(',').map((kind) => kind.trim());
  if (kinds.some((kind) => !(BROKERS as readonly string[]).includes(kind)))
    throw new Error(`GUARANTEES_BROKERS must list brokers among ${BROKERS.join(', ')}, got ${JSON.stringify(raw)}`);
  return kinds as GuaranteesBroker[];
}

/** Events per key: GUARANTEES_PER_KEY when set, else 40 in the fast tier, and 400 (Redis) or 200 (NATS) in the load tier. */
export function guaranteesPerKey(tier: Tier, broker: GuaranteesBroker): number {
  const raw = process.env.GUARANTEES_PER_KEY;
  if (raw === undefined || raw === '') return tier === 'fast' ? 40 : broker === 'redis' ? 400 : 200;
  const value = Number(raw);
  // At least one commit per key, and enough for a quarter of the effects to come before the kill.
  if (!Number.isSafeInteger(value) || value < PER_COMMIT) throw new Error(`GUARANTEES_PER_KEY must be an integer >= ${PER_COMMIT}, got ${JSON.stringify(raw)}`);
  return value;
}

interface TallyRow extends Record<string, unknown> {
  counter_id: string;
  seen: number[];
}

/** What differs between brokers: the project, how a drained group and its dead letters are read, the clean-up. */
interface BrokerSide {
  service: typeof REDIS;
  project: Omit<ServerProjectOptions, 'seed' | 'streamSubscription'>;
  connect(project: ServerProject): Promise<void>;
  /** Nothing pending or unread in the handler's group. */
  drained(project: ServerProject): Promise<boolean>;
  describeGroup(project: ServerProject): Promise<string>;
  deadLetters(project: ServerProject): Promise<number>;
  /** Takeover of a dead consumer's messages is logged (Redis); JetStream redelivers by itself. */
  logsTakeover: boolean;
  close(project: ServerProject | undefined): Promise<void>;
}

function redisSide(): BrokerSide {
  const pending = (project: ServerProject) =>
    Number(execFileSync('redis-cli', ['XPENDING', `${project.streamPrefix}${STREAM}`, TALLY_GROUP], { encoding: 'utf8' }).split('\n')[0]);
  return {
    service: REDIS,
    project: { domain: TALLY_DOMAIN, link: ['redis'], brokerProvider: 'lossy-ack-redis' },
    connect: async () => {},
    drained: async (project) => pending(project) === 0,
    describeGroup: async (project) => `${pending(project)} pending`,
    deadLetters: async (project) => Number(execFileSync('redis-cli', ['XLEN', `${project.streamPrefix}${STREAM}:dlq`], { encoding: 'utf8' }).trim()),
    logsTakeover: true,
    close: async () => {},
  };
}

function natsSide(): BrokerSide {
  let broker: NatsBroker | undefined;
  return {
    service: NATS,
    project: { broker: 'nats', domain: tallyDomain(TALLY_NATS), link: ['nats'], brokerProvider: TALLY_NATS.provider },
    connect: async (project) => {
      broker = new NatsBroker('check', { provider: 'nats', uri: 'nats://127.0.0.1:4222', stream_prefix: project.streamPrefix });
    },
    drained: async () => {
      const status = await broker!.groupStatus(STREAM, TALLY_GROUP);
      return status.pending === 0 && status.lag === 0;
    },
    describeGroup: async () => JSON.stringify(await broker!.groupStatus(STREAM, TALLY_GROUP)),
    deadLetters: async () => (await broker!.listDeadLetters(STREAM)).length,
    logsTakeover: false,
    close: async (project) => {
      await broker?.close();
      if (project) await deleteNatsStreams(project.streamPrefix);
    },
  };
}

export async function describeConsumerGuarantees(broker: GuaranteesBroker, tier: Tier): Promise<void> {
  const PER_KEY = guaranteesPerKey(tier, broker);
  const side = broker === 'redis' ? redisSide() : natsSide();
  const up = await servicesUp(POSTGRES, side.service);
  const label = `${broker} consumer guarantees e2e`;

  describe.skipIf(!up)(`consumer guarantees on ${WORKERS} workers (${broker})`, () => {
    let project: ServerProject;
    beforeAll(async () => {
      project = await serverProject({
        ...side.project,
        seed: TALLY_SEED,
        // The test asserts on order, so a gap must never be passed on time alone here.
        streamSubscription: ['gap_timeout_seconds = 120'],
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
        if (side.logsTakeover) {
          // What it held was taken over once its heartbeat stopped, or once claim_idle_ms passed, whichever came first.
          const takeovers = ['took over messages of a consumer that stopped reporting alive', 'took over messages left pending by a stopped consumer'];
          expect(logs.find((r) => takeovers.includes(String(r.msg)))).toBeDefined();
        }
        // Worker 2 really lost acks.
        const lostAcks = logs.filter((r) => r.msg.startsWith('handled but the ack failed') && r.workerId === 2);
        expect(lostAcks.length).toBeGreaterThan(0);

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
        const counters = sumCounters(logs.filter((r) => r.msg === 'subscription stopped' && r.subscription === TALLY_GROUP));
        console.log(`${label}: ${lostAcks.length} lost ack batches; ${TALLY_GROUP} counters of the workers that stopped cleanly: ${JSON.stringify(counters)}`);
        expect(counters.gapsPassed).toBe(0);
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
    for (const name of ['handled', 'duplicates', 'waits', 'late', 'gapsPassed', 'retried', 'deadLettered']) {
      sums[name] = (sums[name] ?? 0) + Number(record[name] ?? 0);
    }
  }
  return sums;
}
