/**
 * `protean-ts dlq` for an event-store subscription: the server (test mode, drained when the
 * subscription read to the head) dead-letters the event its handler keeps failing on and goes on
 * with the ledger; `dlq list` shows the letter, `dlq replay` runs the handler on the event here
 * and removes the letter, and the inbox keeps the replay from counting twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { LEDGER_DOMAIN, LEDGER_SEED } from './ledger-project.js';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('protean-ts dlq on an event-store subscription', () => {
  let project: ServerProject;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000, env });

  beforeAll(async () => {
    project = await serverProject({
      domain: LEDGER_DOMAIN,
      seed: LEDGER_SEED,
      root: ['enable_outbox = false'],
      server: ['default_subscription_type = "event_store"'],
      toml: '[server.event_store_subscription]\nlease_seconds = 2\npoll_interval_ms = 20\n',
    });
    const setup = await cli(['db', 'setup']);
    expect(setup.code, setup.stderr).toBe(0);
    await project.seed(['1', '5', '5']);
    // Once (CI, a loaded machine) the server found nothing to handle: say whether the seed wrote.
    const [written] = await project.query<{ n: number }>('SELECT count(*)::int AS n FROM protean_events');
    expect(written?.n, 'events the seed wrote to the event store').toBe(5);
    // The handler fails on n = 3 both times (max_retries = 1): dead-lettered, and 4 and 5 follow.
    const server = await cli(['server', '--test-mode'], { FAIL_N: '3' });
    expect(server.code, server.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
  });

  const seen = async () => (await project.query<{ seen: number[] }>('SELECT seen FROM tally'))[0]?.seen;

  it('list shows the event-store letter, with its stream position and the error', async () => {
    expect(await seen()).toEqual([1, 2, 4, 5]);
    const all = await cli(['dlq', 'list']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain('event store books::ledger  1 dead letter (Tallies)');
    const one = await cli(['dlq', 'list', 'Tallies']);
    expect(one.stdout).toMatch(/^\d+ {2}books::ledger-\S+@2 {2}Books\.Posted\.v1 \S+ {2}failed \S+$/m);
    expect(one.stdout).toContain('Error: posting 3 fails (test)');
    expect(one.stdout).toContain('dlq list: 1 dead letter for event-store subscription Tallies (category books::ledger)');
  }, 120_000);

  it('events subscriptions shows the subscription caught up, its lease released, and its dead letter', async () => {
    const text = await cli(['events', 'subscriptions']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/ {2}Tallies \(Tallies\) <- books::ledger {2}0 behind {2}cursor \d+\/5 {2}1 dead letters {2}not held/);
    const [row] = JSON.parse((await cli(['events', 'subscriptions', '--json'])).stdout) as {
      subscription: string;
      behind: number;
      owner: string | null;
      deadLetters: number;
    }[];
    expect(row).toMatchObject({ subscription: 'Tallies', behind: 0, owner: null, deadLetters: 1 });
  }, 120_000);

  it('replay handles the event once through the inbox and removes the letter; a second replay finds nothing', async () => {
    const replay = await cli(['dlq', 'replay', 'Tallies']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('dlq replay: 1 of 1 dead letter handled by Tallies and removed');
    expect(await seen()).toEqual([1, 2, 4, 5, 3]);
    expect((await cli(['dlq', 'list', 'Tallies'])).stdout).toContain('dlq list: 0 dead letters');
    expect((await cli(['dlq', 'replay', 'Tallies'])).stdout).toContain('dlq replay: nothing to replay for Tallies');
    expect((await cli(['dlq', 'purge', 'Tallies', '-y'])).stdout).toContain('dlq purge: no dead letters for event-store subscription Tallies');
  }, 120_000);
});
