import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { BANK_DOMAIN, BANK_SEED } from './bank-project.js';

const up = await servicesUp(POSTGRES, REDIS);

// The tests run in order: each starts from the snapshots the one before it left.
describe.skipIf(!up)(
  'protean-ts snapshot create and verify',
  () => {
    let project: ServerProject;
    let ann: string;
    let bob: string;
    const cli = (...args: string[]) => runCli(args, { cwd: project.cwd });
    const snapshots = () =>
      project.query<{ stream_name: string; version: number; type: string; data: Record<string, unknown> }>(
        'SELECT stream_name, version::int AS version, type, data FROM protean_snapshots ORDER BY stream_name',
      );

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
      // Below the default threshold of 10: the seed's loads wrote no snapshot.
      expect(await snapshots()).toEqual([]);
    }, 120_000);
    afterAll(async () => {
      await project?.drop();
    });

    it('--aggregate --id snapshots that one aggregate at its stream version; a second run finds it current', async () => {
      const first = await cli('snapshot', 'create', '--aggregate', 'Account', '--id', ann);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toBe('snapshot create: 1 snapshot written, 0 already current\n');
      expect(await snapshots()).toEqual([
        { stream_name: `bank::account-${ann}`, version: 2, type: 'Bank.Account.v1', data: expect.objectContaining({ owner: 'Ann', balance: 12 }) },
      ]);
      const again = await cli('snapshot', 'create', '--aggregate', 'Account', '--id', ann);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe('snapshot create: 0 snapshots written, 1 already current\n');
    });

    it('--aggregate snapshots each of its streams, counting those already current', async () => {
      const { code, stdout, stderr } = await cli('snapshot', 'create', '--aggregate', 'Account');
      expect(code, stderr).toBe(0);
      expect(stdout).toBe('snapshot create: 1 snapshot written, 1 already current\n');
      const rows = await snapshots();
      expect(rows.map((r) => [r.stream_name, r.version])).toEqual(
        [
          [`bank::account-${ann}`, 2],
          [`bank::account-${bob}`, 0],
        ].sort(([a], [b]) => String(a).localeCompare(String(b))),
      );
      expect(rows.find((r) => r.stream_name.endsWith(bob))!.data).toMatchObject({ owner: 'Bob', balance: 0 });
    });

    it('without options snapshots every event-sourced aggregate; a second run reports them current', async () => {
      await project.query('DELETE FROM protean_snapshots');
      const first = await cli('snapshot', 'create', '--page-size', '1');
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toBe('snapshot create: 2 snapshots written, 0 already current\n');
      // Four events read one per page: a running count once a second page is needed.
      expect(first.stderr).toContain('snapshot create: Account: 1 aggregate…');
      expect(first.stderr).toContain('snapshot create: Account: 2 aggregates…');
      expect((await snapshots()).map((r) => r.version).sort()).toEqual([0, 2]);
      const again = await cli('snapshot', 'create');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe('snapshot create: 0 snapshots written, 2 already current\n');
      expect(again.stderr).not.toContain('aggregates…');
    });

    it('refuses --id without --aggregate, and an id with no events', async () => {
      const bare = await cli('snapshot', 'create', '--id', ann);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('snapshot create: --id needs --aggregate');
      const missing = await cli('snapshot', 'create', '--aggregate', 'Account', '--id', 'no-such-id');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('snapshot create: Account "no-such-id" has no events (its stream bank::account-<id> is empty)');
      const blank = await cli('snapshot', 'create', '--aggregate', 'Account', '--id', ' ');
      expect(blank.code).toBe(2);
      expect(blank.stderr).toContain('snapshot create: --id is only whitespace; give one, e.g. --aggregate Account --id 42');
    });

    it('refuses an unknown or not event-sourced aggregate, naming the event-sourced ones', async () => {
      const unknown = await cli('snapshot', 'create', '--aggregate', 'Ledger');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('snapshot create: no aggregate is named Ledger (event-sourced aggregates: Account)');
      const plain = await cli('snapshot', 'create', '--aggregate', 'Note');
      expect(plain.code).toBe(2);
      expect(plain.stderr).toContain('snapshot create: Note is not event-sourced (event-sourced aggregates: Account)');
    });

    it('verify checks each snapshot as a load does: none bad, exit 0', async () => {
      const { code, stdout, stderr } = await cli('snapshot', 'verify');
      expect(code, stderr).toBe(0);
      expect(stdout).toBe('snapshot verify: 2 snapshots checked, 0 bad\n');
    });

    it('verify lists each bad snapshot with its reason and exits 1; snapshot create replaces them', async () => {
      await project.query(`UPDATE protean_snapshots SET data = jsonb_set(data, '{balance}', '1000000') WHERE stream_name = $1`, [`bank::account-${ann}`]);
      await project.query('UPDATE protean_snapshots SET version = 999999 WHERE stream_name = $1', [`bank::account-${bob}`]);
      const bad = await cli('snapshot', 'verify');
      expect(bad.code).toBe(1);
      expect(bad.stdout.split('\n').sort()).toEqual(
        [
          '',
          `bad snapshot: bank::account-${ann} version 2: its checksum does not match its content: it was altered after it was written`,
          `bad snapshot: bank::account-${bob} version 999999: its version 999999 is beyond the stream's current version 0`,
          'snapshot verify: 2 snapshots checked, 2 bad',
        ].sort(),
      );
      expect(bad.stderr).toContain('snapshot verify: 2 bad snapshots; loads ignore them and replay the events, and `protean-ts snapshot create` replaces them');

      const one = await cli('snapshot', 'verify', '--aggregate', 'Account', '--id', ann);
      expect(one.code).toBe(1);
      expect(one.stdout).toBe(
        `bad snapshot: bank::account-${ann} version 2: its checksum does not match its content: it was altered after it was written\n` +
          'snapshot verify: 1 snapshot checked, 1 bad\n',
      );
      const bare = await cli('snapshot', 'verify', '--id', ann);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('snapshot verify: --id needs --aggregate');

      const replaced = await cli('snapshot', 'create');
      expect(replaced.code, replaced.stderr).toBe(0);
      expect(replaced.stdout).toBe('snapshot create: 2 snapshots written, 0 already current\n');
      expect(replaced.stderr).toContain(`snapshot of bank::account-${bob} at version 999999 ignored`);
      expect((await snapshots()).map((r) => [r.version, r.data.balance]).sort()).toEqual([
        [0, 0],
        [2, 12],
      ]);
      const good = await cli('snapshot', 'verify');
      expect(good.code, good.stderr).toBe(0);
      expect(good.stdout).toBe('snapshot verify: 2 snapshots checked, 0 bad\n');
    });

    it('refuses an event store in memory, naming the key to set', async () => {
      const memory = await serverProject({ memory: true, domain: BANK_DOMAIN, seed: BANK_SEED });
      const { code, stderr } = await runCli(['snapshot', 'create'], { cwd: memory.cwd });
      expect(code).toBe(1);
      expect(stderr).toContain('no event store to read: [event_store] database = "default" is a memory database');
      expect(stderr).toContain('set [event_store] database to a [databases.<name>] with provider = "postgresql"');
    });
  },
  120_000,
);
