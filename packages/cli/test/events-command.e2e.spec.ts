import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { BANK_DOMAIN, BANK_SEED } from './bank-project.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)(
  'protean-ts events read | history | stats',
  () => {
    let project: ServerProject;
    let ann: string;
    let bob: string;
    const cli = (...args: string[]) => runCli(args, { cwd: project.cwd });

    beforeAll(async () => {
      project = await serverProject({ domain: BANK_DOMAIN, seed: BANK_SEED, toml: '[event_store]\ndatabase = "default"\n' });
      const setup = await cli('db', 'setup');
      expect(setup.code, setup.stderr).toBe(0);
      await project.seed([]);
      const streams = await project.query<{ stream_name: string; n: number }>(
        'SELECT stream_name, count(*)::int AS n FROM protean_events GROUP BY stream_name ORDER BY n DESC',
      );
      expect(streams.map((s) => s.n)).toEqual([3, 1]);
      [ann, bob] = streams.map((s) => s.stream_name.slice('bank::account-'.length)) as [string, string];
    }, 120_000);
    afterAll(async () => {
      await project?.drop();
    });

    it('info shows where each aggregate is kept: an event-sourced one in event streams, with no table', async () => {
      const { code, stdout, stderr } = await cli('info');
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/ {2}aggregate Account → event-sourced, streams bank::account-<id> in the event store of default: /);
      const json = JSON.parse((await cli('info', '--json')).stdout) as { aggregates: Array<Record<string, unknown>> };
      const account = json.aggregates.find((a) => a.name === 'Account');
      expect(account).toMatchObject({ provider: 'default', table: null, eventSourced: true, streamCategory: 'bank::account' });
      // A stored aggregate keeps its table.
      expect(json.aggregates.find((a) => a.name !== 'Account')).toMatchObject({ provider: 'default', table: expect.any(String) });
      expect(json.aggregates.find((a) => a.name !== 'Account')!.eventSourced).toBeUndefined();
    });

    it('read an entity stream: one line per event (position, global position, time, type, id), from a position', async () => {
      const all = await cli('events', 'read', `bank::account-${ann}`);
      expect(all.code, all.stderr).toBe(0);
      const lines = all.stdout.trim().split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(/^0 {2}\d+ {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}Bank\.Opened\.v1 {2}[0-9a-f-]{36}$/);
      expect(lines[1]).toMatch(/^1 {2}\d+ {2}\S+ {2}Bank\.Deposited\.v1 /);
      expect(lines[3]).toBe(`events read: 3 events of bank::account-${ann}`);

      const tail = await cli('events', 'read', `bank::account-${ann}`, '--from', '1', '--limit', '1', '--json');
      expect(tail.code, tail.stderr).toBe(0);
      const records = JSON.parse(tail.stdout) as Record<string, unknown>[];
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        position: 1,
        streamName: `bank::account-${ann}`,
        type: 'Bank.Deposited.v1',
        data: expect.objectContaining({ amount: 5 }),
      });
    });

    it('read a category and $all from the start, paging with progress on stderr', async () => {
      const category = await cli('events', 'read', 'bank::account', '--page-size', '1', '--json');
      expect(category.code, category.stderr).toBe(0);
      const records = JSON.parse(category.stdout) as { globalPosition: number; streamName: string }[];
      expect(records).toHaveLength(4);
      const positions = records.map((r) => r.globalPosition);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(category.stderr).toContain('events read: 2 events…');
      expect(category.stderr).toContain('events read: 4 events…');

      const all = await cli('events', 'read', '$all', '--limit', '2');
      expect(all.code, all.stderr).toBe(0);
      expect(all.stdout).toContain(`Bank.Opened.v1`);
      expect(all.stdout).toContain('events read: 2 events of $all');
      expect(all.stderr).not.toContain('events…');
    });

    it('history lists each event of an aggregate with its version and time', async () => {
      const { code, stdout, stderr } = await cli('events', 'history', 'Account', ann);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain(`Account ${ann} (stream bank::account-${ann})`);
      expect(stdout).toMatch(/ {2}version 0 {2}\S+Z {2}Bank\.Opened\.v1 /);
      expect(stdout).toMatch(/ {2}version 2 {2}\S+Z {2}Bank\.Deposited\.v1 /);
      expect(stdout).toContain('events history: 3 events, version 2');
      const missing = await cli('events', 'history', 'Account', 'no-such-id');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('events history: Account "no-such-id" has no events (its stream bank::account-<id> is empty)');
    });

    it('refuses an empty or blank aggregate id as a usage error, before reading anything', async () => {
      for (const id of ['', '   ']) {
        const { code, stdout, stderr } = await cli('events', 'history', 'Account', id);
        expect(code, stderr).toBe(2);
        expect(stderr).toContain(`events history: <id> is ${id === '' ? 'empty' : 'only whitespace'}; give one, e.g. events history Account 42`);
        expect(stderr).not.toContain('--verbose');
        expect(stdout).toBe('');
      }
    });

    it('echoes a long id once, cut to 120 characters with its length', async () => {
      const id = `x${'y'.repeat(4999)}`;
      const { code, stderr } = await cli('events', 'history', 'Account', id);
      expect(code).toBe(1);
      expect(stderr).toContain(`Account "x${'y'.repeat(119)}"… (5000 characters) has no events`);
      expect(stderr.split('y'.repeat(120))).toHaveLength(1);
    });

    it('stats counts streams, events per category and the head position', async () => {
      const [head] = await project.query<{ max: number }>('SELECT max(global_position)::int AS max FROM protean_events');
      const { code, stdout, stderr } = await cli('events', 'stats');
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('  bank::account  2 streams  4 events');
      expect(stdout).toContain(`events stats: 2 streams, 4 events, head position ${head!.max}`);
      const json = JSON.parse((await cli('events', 'stats', '--json', '--page-size', '3')).stdout) as unknown;
      expect(json).toEqual({ streams: 2, events: 4, headPosition: head!.max, categories: [{ category: 'bank::account', streams: 2, events: 4 }] });
      expect(bob).toBeTruthy();
    });

    it('refuses a name that is no stream, and --from on a category', async () => {
      const bad = await cli('events', 'read', 'accounts');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('"accounts" is no stream name; give an entity stream <domain>::<category>-<id>');
      const from = await cli('events', 'read', 'bank::account', '--from', '2');
      expect(from.code).toBe(2);
      expect(from.stderr).toContain('--from is a position in one entity stream');
    });

    it('refuses history of an unknown or not event-sourced aggregate, naming the event-sourced ones', async () => {
      const unknown = await cli('events', 'history', 'Ledger', 'x');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no aggregate is named Ledger (event-sourced aggregates: Account)');
      const plain = await cli('events', 'history', 'Note', 'x');
      expect(plain.code).toBe(2);
      expect(plain.stderr).toContain('Note is not event-sourced (event-sourced aggregates: Account)');
    });

    // Last: it adds events. Readers take only events of transactions older than the server's
    // oldest open one (xids are cluster-wide), so a read can come back short while such a
    // transaction is open; the command waits for the events held back instead.
    it('a category read waits for events a transaction open on the server holds back, says so on stderr, then prints them all', async () => {
      const blocker = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
      await blocker.connect();
      let open = false;
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT pg_current_xact_id()');
        open = true;
        await project.seed([]);
        const child = startCli(['events', 'read', 'bank::account', '--json'], { cwd: project.cwd });
        let stdout = '';
        let stderr = '';
        child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
        await eventually(async () => stderr.includes('protean-ts events read of bank::account has waited'), 60_000, 'the WARN about events held back');
        expect(stderr).toContain('find it in pg_stat_activity');
        await blocker.query('COMMIT');
        open = false;
        expect(await exited, stderr).toBe(0);
        expect(JSON.parse(stdout)).toHaveLength(8);
      } finally {
        if (open) await blocker.query('ROLLBACK');
        await blocker.end();
      }
    });

    it('refuses an event store in memory, naming the key to set', async () => {
      const memory = await serverProject({ memory: true, domain: BANK_DOMAIN, seed: BANK_SEED });
      const { code, stderr } = await runCli(['events', 'stats'], { cwd: memory.cwd });
      expect(code).toBe(1);
      expect(stderr).toContain('no event store to read: [event_store] database = "default" is a memory database');
      expect(stderr).toContain('set [event_store] database to a [databases.<name>] with provider = "postgresql"');
    });
  },
  120_000,
);
