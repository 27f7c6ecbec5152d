/**
 * `[event_store] database_uri` through the real commands: a bank project whose aggregates use
 * `default` and whose event store has a database of its own (a second temp database, its URI
 * from `${EVENTS_URI}` with a password that must never be printed). `db setup` creates the
 * store's tables there, the seed's events land there and not in `default`, `events` and
 * `snapshot create` read it, the server waits for it at start, and `db truncate` / `db drop`
 * include it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemporaryDatabase, freePort, POSTGRES, REDIS, servicesUp, type TemporaryDatabase } from '@protean-ts/conformance';
import { runCli, type CliResult } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { BANK_DOMAIN, BANK_SEED } from './bank-project.js';

const up = await servicesUp(POSTGRES, REDIS);

const PASSWORD = 'events-db-pw';

// The tests run in order: setup, seed, read, snapshot, (server start-up), truncate, drop.
describe.skipIf(!up)(
  '[event_store] database_uri: the store in a database of its own',
  () => {
    let events: TemporaryDatabase;
    const inStore = <R extends Record<string, unknown>>(sql: string) => events.query<R>(sql);
    let project: ServerProject;
    let ann: string;
    const cli = (...args: string[]) => runCli(args, { cwd: project.cwd });
    const noSecret = (result: CliResult) => expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    const tablesOfStore = async () =>
      (await inStore<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).map((r) => r.t);

    beforeAll(async () => {
      events = await createTemporaryDatabase({ label: 'cli_events' });
      // Trust authentication ignores the password; it is here to be masked. The seed inherits it.
      process.env.EVENTS_URI = `postgresql://postgres:${PASSWORD}@127.0.0.1:5432/${events.name}`;
      project = await serverProject({
        domain: BANK_DOMAIN,
        seed: BANK_SEED,
        toml: '[event_store]\nprovider = "postgresql"\ndatabase_uri = "${EVENTS_URI}"\n\n[impatient.server]\nstartup_timeout_seconds = 2\n',
      });
    }, 120_000);
    afterAll(async () => {
      delete process.env.EVENTS_URI;
      await project?.drop();
      await events?.drop();
    });

    it("config check shows the store's database as [databases.event_store], masked", async () => {
      const result = await cli('config', 'check');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('[databases.event_store]');
      expect(result.stdout).toContain(`postgresql://postgres:***@127.0.0.1:5432/${events.name}`);
      noSecret(result);
    });

    it("db setup creates the event store's tables in its own database, printing its URI masked", async () => {
      const setup = await cli('db', 'setup');
      expect(setup.code, setup.stderr).toBe(0);
      expect(setup.stdout).toContain(`db setup: [databases.event_store] postgresql (postgresql://postgres:***@127.0.0.1:5432/${events.name})`);
      noSecret(setup);
      expect(await tablesOfStore()).toEqual(
        expect.arrayContaining([
          'protean_event_store_dead_letters',
          'protean_event_store_subscriptions',
          'protean_event_streams',
          'protean_events',
          'protean_outbox',
          'protean_snapshots',
        ]),
      );
      // The aggregates' tables stay in default.
      expect(await tablesOfStore()).not.toContain('note');
      expect((await project.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_name = 'note'")).length).toBe(1);
    });

    it("the seed's events and their outbox rows are stored in the store's database, not in default", async () => {
      await project.seed([]);
      const streams = await inStore<{ stream_name: string; n: number }>(
        'SELECT stream_name, count(*)::int AS n FROM protean_events GROUP BY stream_name ORDER BY n DESC',
      );
      expect(streams.map((s) => s.n)).toEqual([3, 1]);
      ann = streams[0]!.stream_name.slice('bank::account-'.length);
      expect(await inStore<{ n: number }>('SELECT count(*)::int AS n FROM protean_outbox')).toEqual([{ n: 4 }]);
      expect(await project.query<{ n: number }>('SELECT count(*)::int AS n FROM protean_events')).toEqual([{ n: 0 }]);
      expect(await project.query<{ n: number }>('SELECT count(*)::int AS n FROM protean_outbox')).toEqual([{ n: 0 }]);
    });

    it("events stats and history read the store's database", async () => {
      const stats = await cli('events', 'stats');
      expect(stats.code, stats.stderr).toBe(0);
      expect(stats.stdout).toContain('  bank::account  2 streams  4 events');
      const history = await cli('events', 'history', 'Account', ann);
      expect(history.code, history.stderr).toBe(0);
      expect(history.stdout).toContain('events history: 3 events, version 2');
      noSecret(stats);
      noSecret(history);
    });

    it("snapshot create writes the snapshots to the store's database", async () => {
      const result = await cli('snapshot', 'create');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('snapshot create: 2 snapshots written, 0 already current\n');
      expect(await inStore<{ n: number }>('SELECT count(*)::int AS n FROM protean_snapshots')).toEqual([{ n: 2 }]);
      expect(await project.query<{ n: number }>('SELECT count(*)::int AS n FROM protean_snapshots')).toEqual([{ n: 0 }]);
    });

    it("the server waits for the store's database at start like any other, naming it masked", async () => {
      const port = await freePort();
      const unreachable = `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/${events.name}`;
      const result = await runCli(['server'], { cwd: project.cwd, env: { EVENTS_URI: unreachable, PROTEAN_ENV: 'impatient' }, timeoutMs: 60_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('still not reachable after 2 s ([server] startup_timeout_seconds)');
      expect(result.stderr).toContain(`[databases.event_store] (postgresql at postgresql://postgres:***@127.0.0.1:${port}/${events.name})`);
      noSecret(result);
    }, 90_000);

    it("db truncate empties the store's tables, and db drop drops them", async () => {
      const truncate = await cli('db', 'truncate', '-y');
      expect(truncate.code, truncate.stderr).toBe(0);
      expect(truncate.stdout).toContain('db truncate: [databases.event_store]');
      expect(await inStore<{ n: number }>('SELECT count(*)::int AS n FROM protean_events')).toEqual([{ n: 0 }]);
      const drop = await cli('db', 'drop', '-y');
      expect(drop.code, drop.stderr).toBe(0);
      noSecret(drop);
      expect(await tablesOfStore()).toEqual([]);
    });
  },
  120_000,
);
