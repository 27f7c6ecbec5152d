/**
 * `protean-ts projection rebuild` and `projection status` on PostgreSQL: the bank's accounts are
 * seeded with event_processing = "async" and no server, so AccountSummary starts empty and its
 * event-store subscription lags; a rebuild replays the events (progress on stderr, a summary on
 * stdout), reading none of the other categories' events around them, and status then reads ok;
 * NoteIndex is refused with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { BANK_SEED } from './bank-project.js';
import { PROJECTION_BANK_DOMAIN } from './projection-bank-project.js';

const up = await servicesUp(POSTGRES, REDIS);

/** Ten `Transitioned` events of a process manager's stream (its id the first argument), as its runner appends them. */
const OTHER_EVENTS = `
import { randomUUID } from 'node:crypto';
import { domain } from './domain.ts';
await domain.init();
const provider = domain.providers.get('default')!;
const tx = await provider.begin();
const transitions = Array.from({ length: 10 }, () => ({ messageId: randomUUID(), type: 'Bank.AccountOpening.Transitioned.v1', data: { state: {}, completed: false } }));
await provider.eventStore.append(tx, 'bank::account_opening-' + process.argv[2], transitions);
await tx.commit();
await domain.close();
`;

// The tests run in order: status before the rebuild, the rebuild, status after it.
describe.skipIf(!up)('protean-ts projection', () => {
  let project: ServerProject;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd });
  const summaries = () => project.query<{ owner: string; balance: number }>('SELECT owner, balance::int AS balance FROM account_summary ORDER BY owner');

  beforeAll(async () => {
    project = await serverProject({
      domain: PROJECTION_BANK_DOMAIN,
      seed: BANK_SEED,
      toml: '[event_store]\ndatabase = "default"\n',
      scripts: { 'other-events.ts': OTHER_EVENTS },
    });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain('account_summary');
    expect(setup.stdout).toContain('protean_projections');
    // A process manager's transitions before and after the accounts' events: no projector follows them.
    await project.run('other-events.ts', ['1']);
    await project.seed([]);
    await project.run('other-events.ts', ['2']);
    expect(await summaries()).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
  });

  it('status: the event-store subscription has not run, so AccountSummary lags by the four events; the stream-fed NoteIndex has no group yet', async () => {
    const { code, stdout, stderr } = await cli('projection', 'status', '--json');
    expect(code, stderr).toBe(0);
    const [account, notes] = JSON.parse(stdout) as {
      projection: string;
      subscriptions: { subscription: string; source: string; lag: number | string; state: string }[];
    }[];
    expect(account).toMatchObject({
      projection: 'AccountSummary',
      subscriptions: [{ subscription: 'AccountSummaryProjector', source: 'event_store', lag: 4, state: 'lagging' }],
    });
    // NoteIndex reads Redis streams; no server has created its consumer group.
    expect(notes).toMatchObject({ projection: 'NoteIndex', subscriptions: [{ subscription: 'NoteIndexProjector', source: 'stream', state: 'unknown' }] });
    expect(notes!.subscriptions[0]!.lag).toContain('no consumer group yet');
  });

  it('rebuild replays the events with progress and a summary; status then reads ok', async () => {
    const rebuilt = await cli('projection', 'rebuild', 'AccountSummary', '--batch', '2');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/^projection rebuild: AccountSummary rebuilt: 4 events applied, 0 skipped \(4 read from the event store\) in \d+\.\d s\n$/);
    // Only the account category is read: the 20 transitions in the store are neither read nor counted.
    const [last] = await project.query<{ position: string }>(
      "SELECT max(global_position)::text AS position FROM protean_events WHERE category = 'bank::account'",
    );
    const batches = rebuilt.stderr.split('\n').filter((line) => line.includes(' read, '));
    expect(batches).toEqual([
      expect.stringMatching(/^projection rebuild: AccountSummary: 2 events read, 2 applied, 0 skipped \(global position \d+\)$/),
      `projection rebuild: AccountSummary: 4 events read, 4 applied, 0 skipped (global position ${last!.position})`,
    ]);
    expect(await summaries()).toEqual([
      { owner: 'Ann', balance: 12 },
      { owner: 'Bob', balance: 0 },
    ]);

    const again = await cli('projection', 'rebuild', 'AccountSummary');
    expect(again.code, again.stderr).toBe(0);
    expect(await summaries()).toEqual([
      { owner: 'Ann', balance: 12 },
      { owner: 'Bob', balance: 0 },
    ]);

    const status = await cli('projection', 'status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/AccountSummary\s+AccountSummaryProjector\s+event_store\s+\d+\s+0\s+ok/);
    expect(status.stdout).toMatch(/AccountSummary: last rebuilt \S+ \(4 events applied\)/);
  });

  it('info lists the projections and projectors', async () => {
    const { code, stdout, stderr } = await cli('info');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('  projection: AccountSummary, NoteIndex\n');
    expect(stdout).toContain('  projector: AccountSummaryProjector, NoteIndexProjector\n');
  });

  it('refuses to rebuild a projection whose aggregate is not event-sourced, and an unknown one, saying why', async () => {
    const notes = await cli('projection', 'rebuild', 'NoteIndex');
    expect(notes.code).toBe(1);
    expect(notes.stderr).toContain(
      'projection rebuild: cannot rebuild NoteIndex: NoteIndexProjector follows "bank::note", whose events are not in the event store (aggregate Note is not event-sourced',
    );
    const unknown = await cli('projection', 'rebuild', 'Nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('cannot rebuild Nope: domain Bank has no projection named "Nope" (projections: AccountSummary, NoteIndex)');
    // Refused before anything is announced: nothing was emptied.
    for (const refused of [notes, unknown]) expect(refused.stderr).not.toContain('emptying it');
    const batch = await cli('projection', 'rebuild', 'AccountSummary', '--batch', '0');
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('--batch must be a whole number of at least 1');
  });
});
