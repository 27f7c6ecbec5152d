/**
 * `dlq` and `status` on a domain whose streams are split into partitions (`outbox.partitions =
 * 3`), on PostgreSQL and Redis: two orders whose keys hash to different partitions are
 * dead-lettered by Receipts, each in its partition's dead-letter stream; `dlq list` shows both
 * with their partition, `status` counts both, `dlq replay` sends each back to its own partition
 * (the next run dead-letters them there again), and `dlq purge` empties every partition's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf, partitionStream } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { runCli } from './run-cli.js';
import { serverProject, SHOP_DOMAIN, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);

const PARTITIONS = 3;

// The shop with the order's id chosen by the caller (the customer's name), so the test knows
// which partition each order's messages go to, and Receipts failing for every "poison…" customer.
const KEYED_SHOP = SHOP_DOMAIN.replace(
  'Order.create({ customer: command.customer })',
  'Order.create({ id: command.customer, customer: command.customer })',
).replace("event.customer === 'poison'", "event.customer?.startsWith('poison')");

/** The first `poison-<n>` customer whose order lands in the partition. */
function poisonIn(partition: number): string {
  for (let n = 1; ; n += 1) if (partitionOf(`shop::order-poison-${n}`, PARTITIONS) === partition) return `poison-${n}`;
}

interface LetterJson {
  id: string;
  partitionStream: string;
  group: string;
  envelope: { data: { customer: string } };
}

describe.skipIf(!up)('protean-ts dlq and status with outbox.partitions = 3', () => {
  let project: ServerProject;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });
  const one = poisonIn(1);
  const two = poisonIn(2);
  const letters = async () => (JSON.parse((await cli('dlq', 'list', 'Receipts', '--json')).stdout) as { total: number; letters: LetterJson[] }).letters;
  const where = (list: LetterJson[]) => list.map((l) => [l.envelope.data.customer, l.partitionStream]).sort();

  beforeAll(async () => {
    // `toml` follows the [outbox] table's lines, so this line is part of it.
    project = await serverProject({ domain: KEYED_SHOP, toml: `partitions = ${PARTITIONS}\n` });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
    await project.seed(['Ann', one, two]);
    const server = await cli('server', '--test-mode');
    expect(server.code, server.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
  });

  it('dlq list finds the dead letters of every partition, each with its partition stream', async () => {
    const all = await cli('dlq', 'list');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain('default:shop::order (3 partitions)  2 dead letters (Receipts: 2)');
    expect(all.stdout).toContain('dlq list: 2 dead letters in 2 streams');

    const list = await cli('dlq', 'list', 'Receipts');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/\S+ {2}shop::order#1 {2}Receipts {2}Shop\.OrderPlaced\.v1 /);
    expect(list.stdout).toMatch(/\S+ {2}shop::order#2 {2}Receipts {2}Shop\.OrderPlaced\.v1 /);
    expect(list.stdout).toContain('dlq list: 2 dead letters for subscription Receipts on stream shop::order (3 partitions)');
    expect(where(await letters())).toEqual([
      [one, partitionStream('shop::order', 1)],
      [two, partitionStream('shop::order', 2)],
    ]);

    // One partition named as the target: its letters only.
    const single = await cli('dlq', 'list', 'shop::order#2');
    expect(single.stderr).not.toContain('note:');
    expect(single.stdout).toContain('dlq list: 1 dead letter for stream shop::order#2');
  }, 120_000);

  it('status counts the dead letters and backlog of every partition', async () => {
    const { code, stdout, stderr } = await cli('status', '--json');
    expect(code, stderr).toBe(0);
    const status = JSON.parse(stdout) as { subscriptions: { subscription: string }[] };
    expect(status.subscriptions.find((s) => s.subscription === 'Receipts')).toMatchObject({
      stream: 'shop::order',
      partitions: 3,
      exists: true,
      lag: 0,
      pending: 0,
      deadLetters: 2,
    });
    const human = await cli('status');
    expect(human.stdout).toMatch(/Receipts\s+stream\s+default:shop::order \(3 partitions\)\s+0\s+0\s+\d+\s+2\s*\n/);
    expect(human.stdout).toContain('0 of 2 subscriptions behind; 2 dead letters');
  }, 120_000);

  it('dlq replay sends each letter back to its own partition, where the next run dead-letters it again', async () => {
    // Dead-letter ids are per partition: both letters can carry the same id when they were
    // dead-lettered in the same millisecond, so one letter is named by its partition and id.
    const [inTwo] = (await letters()).filter((l) => l.partitionStream === 'shop::order#2');
    const chosen = await cli('dlq', 'replay', 'shop::order#2', '--id', inTwo!.id);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.stdout).toContain('dlq replay: 1 dead letter published back to default:shop::order (shop::order#2)');
    expect(where(await letters())).toEqual([[one, 'shop::order#1']]);

    const rest = await cli('dlq', 'replay', 'Receipts');
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain('dlq replay: 1 dead letter published back to default:shop::order (shop::order#1)');
    expect(await letters()).toEqual([]);

    const server = await cli('server', '--test-mode');
    expect(server.code, server.stderr).toBe(0);
    expect(where(await letters())).toEqual([
      [one, 'shop::order#1'],
      [two, 'shop::order#2'],
    ]);
    const both = await cli('dlq', 'replay', 'Receipts');
    expect(both.stdout).toContain('dlq replay: 2 dead letters published back to default:shop::order (shop::order#1, shop::order#2)');
    const again = await cli('server', '--test-mode');
    expect(again.code, again.stderr).toBe(0);
    expect(where(await letters())).toEqual([
      [one, 'shop::order#1'],
      [two, 'shop::order#2'],
    ]);
    expect(await project.receipts()).toEqual(['Ann']);
  }, 180_000);

  it('dlq purge of the stream deletes the dead letters of every partition', async () => {
    const { code, stdout, stderr } = await cli('dlq', 'purge', 'shop::order', '-y');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('dlq purge: 2 dead letters deleted from default:shop::order (3 partitions)');
    expect((await cli('dlq', 'list')).stdout).toContain('dlq list: 0 dead letters in 2 streams');
  }, 120_000);
});
