/**
 * RabbitMQ as the default broker, end to end: `protean-ts server --workers 3` on PostgreSQL and
 * RabbitMQ with one worker SIGKILLed while it works (every key's effects exactly once and in
 * order: RabbitMQ hands the dead worker's unacked messages back to the group queue, the inbox
 * keeps order and drops repeats), and `dlq list | replay | purge` on a RabbitMQ dead-letter queue.
 * Each describe runs in a virtual host of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRabbitmqVhost, deleteRabbitmqVhost, POSTGRES, RABBITMQ, rabbitmqUri, servicesUp } from '@protean-ts/core/testing';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { LogWatcher } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { TALLY_DOMAIN, TALLY_GROUP, TALLY_SEED } from './tally-project.js';
import { StallGuard } from './stall-guard.js';

const up = await servicesUp(POSTGRES, RABBITMQ);

const KEYS = 30;
const PER_KEY = 200;
const PER_COMMIT = 20;
const WORKERS = 3;
const KILLED = 1;

/** The tally domain without its lossy Redis broker: the broker here is plain RabbitMQ. */
const RABBIT_TALLY_DOMAIN = TALLY_DOMAIN.replace(/import \{ \w+ as AdapterBroker \}[\s\S]*?registerBroker\([^\n]*\n/, '');
if (RABBIT_TALLY_DOMAIN.includes('AdapterBroker')) throw new Error('rabbitmq e2e: the tally domain changed shape; update RABBIT_TALLY_DOMAIN');

const rabbitBroker = (vhost: string) => ['provider = "rabbitmq"', `uri = "${rabbitmqUri(vhost)}"`];

describe.skipIf(!up)(`rabbitmq: consumer guarantees on ${WORKERS} workers`, () => {
  let project: ServerProject;
  let vhost: string;
  beforeAll(async () => {
    vhost = await createRabbitmqVhost('cli-guarantees');
    project = await serverProject({
      domain: RABBIT_TALLY_DOMAIN,
      seed: TALLY_SEED,
      brokerLines: rabbitBroker(vhost),
      streamSubscription: ['gap_timeout_seconds = 120'],
    });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
    if (vhost) await deleteRabbitmqVhost(vhost);
  });

  const handledCount = async (): Promise<number> => {
    const [row] = await project.query<{ n: string | null }>('SELECT sum(jsonb_array_length(seen::jsonb)) AS n FROM tally');
    return Number(row?.n ?? 0);
  };

  it(`handles ${KEYS * PER_KEY} events of ${KEYS} keys exactly once each and in each key's order, through a SIGKILLed worker`, async () => {
    const total = KEYS * PER_KEY;
    const child = startCli(['server', '--workers', String(WORKERS), '--grace', '10', '--restart-delay', '100'], {
      cwd: project.cwd,
      env: { PROTEAN_LOG_LEVEL: 'info' },
    });
    const logs = new LogWatcher(child);
    const observer = new RabbitMQBroker('observer', { provider: 'rabbitmq', uri: rabbitmqUri(vhost) });
    const started = Date.now();
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    try {
      for (let id = 1; id <= WORKERS; id++) await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === id, 90_000, `worker ${id} ready`);
      const victim = logs.find((r) => r.msg === 'worker started' && r.workerId === KILLED)!.pid as number;
      const seeding = project.seed([String(KEYS), String(PER_KEY), String(PER_COMMIT)]);
      // Slow is fine (CI runs this beside the shop's e2e); stopped is not.
      const stall = new StallGuard(90_000);
      let killedAt = -1;
      for (;;) {
        const handled = await handledCount();
        if (killedAt < 0 && handled >= total / 4) {
          process.kill(victim, 'SIGKILL');
          killedAt = handled;
          console.log(`rabbitmq e2e: SIGKILL worker ${KILLED} (pid ${victim}) at ${handled} effects, ${elapsed()}`);
        }
        const status = await observer.groupStatus('ticks::counter', TALLY_GROUP);
        if (handled >= total && killedAt >= 0 && status.lag === 0) break;
        stall.check(`${handled} effects, lag ${status.lag}`, () => logs.dump());
        await new Promise((r) => setTimeout(r, 250));
      }
      await seeding;
      console.log(`rabbitmq e2e: ${total} events drained after ${elapsed()}`);

      expect(logs.find((r) => r.msg === 'worker crashed; restarting' && r.workerId === KILLED)).toMatchObject({ exit: 'signal SIGKILL' });
      const rows = await project.query<{ counter_id: string; seen: number[] }>('SELECT counter_id, seen FROM tally ORDER BY counter_id');
      expect(rows).toHaveLength(KEYS);
      const expected = JSON.stringify(Array.from({ length: PER_KEY }, (_, i) => i + 1));
      expect(rows.filter((row) => JSON.stringify(row.seen) !== expected).map((row) => `${row.counter_id}: ${row.seen.length} effects`)).toEqual([]);
      const outbox = await project.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM protean_outbox GROUP BY status');
      expect(outbox).toEqual([{ status: 'published', n: String(total) }]);
      expect(await observer.listDeadLetters('ticks::counter')).toEqual([]);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Nothing left unacked once every worker stopped: all of it is back in (or gone from) the queue.
      expect(await observer.groupStatus('ticks::counter', TALLY_GROUP)).toEqual({ pending: 0, lag: 0, exists: true, pendingLocalOnly: true });
    } finally {
      await observer.close();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 900_000);
});

describe.skipIf(!up)('rabbitmq: protean-ts dlq list | replay | purge', () => {
  let project: ServerProject;
  let vhost: string;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });

  beforeAll(async () => {
    vhost = await createRabbitmqVhost('cli-dlq');
    project = await serverProject({ brokerLines: rabbitBroker(vhost) });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
    await project.seed(['Ann', 'poison']);
    const server = await cli('server', '--test-mode');
    expect(server.code, server.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
    if (vhost) await deleteRabbitmqVhost(vhost);
  });

  it('lists the dead letter with the handler error, replays it (handled and dead-lettered again), and purges it', async () => {
    const list = await cli('dlq', 'list', 'Receipts');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('Error: cannot write a receipt for poison');
    expect(list.stdout).toContain('dlq list: 1 dead letter for subscription Receipts on stream shop::order');

    const replay = await cli('dlq', 'replay', 'Receipts');
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('dlq replay: 1 dead letter published back to default:shop::order');
    expect((await cli('dlq', 'list', 'Receipts')).stdout).toContain('dlq list: 0 dead letters');
    const server = await cli('server', '--test-mode');
    expect(server.code, server.stderr).toBe(0);
    expect((await cli('dlq', 'list', 'Receipts')).stdout).toContain('dlq list: 1 dead letter for subscription Receipts');
    expect(await project.receipts()).toEqual(['Ann']);

    const purge = await cli('dlq', 'purge', 'shop::order', '-y');
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toContain('dlq purge: 1 dead letter deleted from default:shop::order');
    expect((await cli('dlq', 'list', 'Receipts')).stdout).toContain('dlq list: 0 dead letters');
  }, 240_000);
});
