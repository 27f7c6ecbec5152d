/**
 * Commands that report back, across processes: a client process sends commands asynchronously
 * and awaits their outcomes while `protean-ts server` (PostgreSQL + Redis) handles them. An
 * awaited outcome is the handler's result, a refusal comes back as CommandRefusedError with the
 * handler's error class and message, an idempotency key reused returns the first outcome without
 * running the handler again, and the server's janitor removes the records past their retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { LogWatcher } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const SEATS_DOMAIN = `
import { Domain, BaseAggregate, BaseCommand, BaseCommandHandler, PermanentError, field, handle } from '@protean-ts/core';

export const domain = new Domain('Theatre', { root: import.meta.url });

export class SeatTaken extends PermanentError {}

@domain.aggregate()
export class Seat extends BaseAggregate {
  @field.string({ required: true, unique: true }) label!: string;
  @field.string({ required: true }) holder!: string;
}

@domain.command({ partOf: Seat })
export class ReserveSeat extends BaseCommand {
  @field.string({ required: true }) label!: string;
  @field.string({ required: true }) holder!: string;
}

@domain.commandHandler({ partOf: Seat })
export class BoxOffice extends BaseCommandHandler {
  @handle(ReserveSeat) async reserve(command: ReserveSeat): Promise<{ seatId: string; label: string; pid: number }> {
    const seats = domain.repositoryFor(Seat);
    const [taken] = await seats.query({ filter: { label: command.label } });
    if (taken) throw new SeatTaken(\`seat \${command.label} is taken by \${taken.holder}\`);
    const seat = Seat.create({ label: command.label, holder: command.holder });
    await seats.add(seat);
    return { seatId: seat.id, label: seat.label, pid: process.pid };
  }
}
`;

// The client: another process than the server's workers.
const CLIENT = `
import { CommandRefusedError } from '@protean-ts/core';
import { domain, ReserveSeat } from './domain.ts';
await domain.init();
const awaited = { asynchronous: true, awaitOutcome: { timeoutMs: 60_000 } } as const;
const first = await domain.process(ReserveSeat.create({ label: 'A1', holder: 'ann' }), awaited);
let refused: unknown;
try {
  await domain.process(ReserveSeat.create({ label: 'A1', holder: 'bob' }), awaited);
} catch (error) {
  const e = error as CommandRefusedError;
  refused = { isCommandRefusedError: error instanceof CommandRefusedError, name: e.name, errorName: e.errorName, errorMessage: e.errorMessage };
}
const keyed = { ...awaited, idempotencyKey: 'basket-7' };
const [a, b] = await Promise.all([
  domain.process(ReserveSeat.create({ label: 'B2', holder: 'cy' }), keyed),
  domain.process(ReserveSeat.create({ label: 'B2', holder: 'cy' }), keyed),
]);
const later = await domain.process(ReserveSeat.create({ label: 'B2', holder: 'cy' }), keyed);
const queuedAgain = await domain.process(ReserveSeat.create({ label: 'B2', holder: 'cy' }), { asynchronous: true, idempotencyKey: 'basket-7' });
console.log(JSON.stringify({ clientPid: process.pid, first, refused, keyed: [a, b, later], queuedAgain }));
await domain.close();
`;

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('commands that report back, across processes', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({
      domain: SEATS_DOMAIN,
      scripts: { 'client.ts': CLIENT },
      link: ['redis'],
      // 36 s: long enough for the client's commands, short enough to watch the janitor remove them.
      toml: '[command_outcomes]\nretention_hours = 0.01\n',
    });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain('protean_command_outcomes');
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
  });

  it("resolves with the handler's result, rejects with its refusal, runs a reused key once, and cleans up after the retention", async () => {
    const server = startCli(['server', '--workers', '2'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info' } });
    const logs = new LogWatcher(server);
    try {
      for (const id of [1, 2]) await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === id, 90_000, `worker ${id} ready`);
      const out = JSON.parse((await project.run('client.ts')).trim()) as {
        clientPid: number;
        first: { seatId: string; label: string; pid: number };
        refused: Record<string, unknown>;
        keyed: { seatId: string }[];
        queuedAgain: string;
      };

      expect(out.first.label).toBe('A1');
      // The handler ran in a server worker, not in the client.
      expect(out.first.pid).not.toBe(out.clientPid);
      const [seat] = await project.query<{ id: string; holder: string }>(`SELECT id, holder FROM seat WHERE label = 'A1'`);
      expect(seat).toEqual({ id: out.first.seatId, holder: 'ann' });

      expect(out.refused).toEqual({
        isCommandRefusedError: true,
        name: 'CommandRefusedError',
        errorName: 'SeatTaken',
        errorMessage: 'seat A1 is taken by ann',
      });

      // One run for the key: a second run would have been refused (B2 taken) instead of giving the same seat.
      expect(new Set(out.keyed.map((r) => r.seatId)).size).toBe(1);
      const keyRows = await project.query<{ command_id: string; status: string }>(
        `SELECT command_id, status FROM protean_command_outcomes WHERE idempotency_key = 'basket-7'`,
      );
      expect(keyRows).toEqual([{ command_id: out.queuedAgain, status: 'succeeded' }]);
      const queued = await project.query<{ n: string }>(`SELECT count(*) AS n FROM protean_outbox WHERE data->>'label' = 'B2'`);
      expect(queued).toEqual([{ n: '1' }]);
      expect(await project.query(`SELECT holder FROM seat WHERE label = 'B2'`)).toEqual([{ holder: 'cy' }]);

      // The janitor of the workers removes the records once they are older than retention_hours.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const [left] = await project.query<{ n: string }>('SELECT count(*) AS n FROM protean_command_outcomes');
        if (left!.n === '0') break;
        if (Date.now() > deadline) throw new Error(`${left!.n} command outcome records left after the retention\n${logs.dump()}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      expect(logs.find((r) => String(r.msg).startsWith('command outcome cleanup removed'))).toBeDefined();
    } finally {
      if (server.exitCode === null) server.kill('SIGKILL');
    }
  }, 240_000);
});
