/**
 * Batched transactions on PostgreSQL and Redis (`[server.stream_subscription] batch_size` > 1):
 * messages of different keys share one transaction (a savepoint each, one commit), every effect
 * lands once and in its key's order, a failing handler rolls back only its own savepoint and is
 * retried alone, and a handler with `ownTransaction: true` is never batched. That messages really
 * shared a transaction is read off PostgreSQL itself: each tally row records `txid_current()`,
 * the top-level transaction, when it is inserted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type ConfigOverrides } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import type { SubscriptionStatus } from '../src/subscriptions/subscription-status.js';
import { eventually } from './support/eventually.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

interface Probe {
  /** `noteId:n` of every handler run that returned, in finish order. */
  handled: string[];
  /** Handler runs so far (retries included). */
  runs: number;
  /** Keys (1-based, in the order their first run starts) whose first run throws after writing. */
  failKeys: Set<number>;
  /** Each key's place in that order. */
  keyOrder: Map<string, number>;
}

function makeTallies(db: TempDatabase, prefix: string, streamSubscription: Record<string, unknown>, probe: Probe, ownTransaction = false) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-batches-'));
  const config: ConfigOverrides = {
    event_processing: 'async',
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
    brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix } },
    server: {
      health: { port: 0 },
      tick_interval: 0.05,
      stream_subscription: { blocking_timeout_ms: 50, max_retries: 2, retry_delay_seconds: 0.02, ...streamSubscription },
    },
    outbox: { tick_interval: 0.05 },
  };
  const domain = new Domain('Batches', { root, config });

  @domain.aggregate()
  class Note extends BaseAggregate {
    @field.integer({ required: true }) count!: number;
  }

  @domain.event({ partOf: Note })
  class Noted extends BaseEvent {
    @field.identifier({ required: true }) noteId!: string;
    @field.integer({ required: true }) n!: number;
  }

  /** One row per note, written by the handler: its count must end at the number of events, its n in order. */
  @domain.aggregate()
  class Tally extends BaseAggregate {
    @field.integer({ required: true }) seen!: number;
    @field.integer({ required: true }) last!: number;
  }

  @domain.event({ partOf: Tally })
  class Tallied extends BaseEvent {
    @field.identifier({ required: true }) tallyId!: string;
    @field.integer({ required: true }) n!: number;
  }

  @domain.eventHandler({ partOf: Note, ownTransaction })
  class Tallies extends BaseEventHandler {
    @handle(Noted) async onNoted(event: Noted): Promise<void> {
      const tag = `${event.noteId}:${event.n}`;
      probe.runs += 1;
      const firstRun = !probe.keyOrder.has(event.noteId);
      if (firstRun) probe.keyOrder.set(event.noteId, probe.keyOrder.size + 1);
      const tallies = domain.repositoryFor(Tally);
      const tally = event.n === 1 ? Tally.create({ id: event.noteId, seen: 0, last: 0 }) : await tallies.get(event.noteId);
      if (tally.last !== event.n - 1) throw new Error(`${tag} handled after ${tally.last}: out of order`);
      tally.seen += 1;
      tally.last = event.n;
      tally.raise(Tallied.create({ tallyId: tally.id, n: event.n }));
      await tallies.add(tally);
      if (firstRun && probe.failKeys.has(probe.keyOrder.get(event.noteId)!))
        throw new Error(`${tag} fails on its first run (after writing, so its savepoint has something to undo)`);
      probe.handled.push(tag);
    }
  }

  async function commit(ns: number[]): Promise<string> {
    const note = Note.create({ count: 0 });
    for (const n of ns) {
      note.count += 1;
      note.raise(Noted.create({ noteId: note.id, n }));
    }
    await domain.repositoryFor(Note).add(note);
    return note.id;
  }
  return { domain, commit, Tallies };
}

describe.skipIf(!up)('batched transactions (PostgreSQL and Redis)', () => {
  let db: TempDatabase;
  let prefix: string;
  let engine: Engine | null = null;

  beforeEach(async () => {
    db = await createTempDatabase();
    prefix = uniquePrefix('batches');
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    await db.drop();
  });

  /**
   * Commits `notes` notes of `events` events each, then starts the engine: the relay publishes them
   * in one go, so the subscription holds many keys at once (what batches are made of).
   */
  async function run(
    streamSubscription: Record<string, unknown>,
    probe: Probe,
    notes: number,
    events: number,
    ownTransaction = false,
    beforeStart: (ids: string[]) => Promise<void> = async () => undefined,
  ): Promise<string[]> {
    const app = makeTallies(db, prefix, streamSubscription, probe, ownTransaction);
    await app.domain.init();
    for (const provider of app.domain.providers.values()) await provider.setupSchema(app.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
    // Which top-level transaction inserted each tally row (the DAO names its columns, so the default applies).
    await db.query('ALTER TABLE tally ADD COLUMN inserted_by bigint DEFAULT txid_current()');
    const ids: string[] = [];
    for (let i = 0; i < notes; i += 1) ids.push(await app.commit(Array.from({ length: events }, (_, k) => k + 1)));
    await beforeStart(ids);
    engine = new Engine(app.domain, { health: false });
    await engine.start();
    return ids;
  }

  const sharedTransactions = async () => {
    const [row] = await db.query<{ rows: string; transactions: string }>('SELECT count(*) AS rows, count(DISTINCT inserted_by) AS transactions FROM tally');
    return { rows: Number(row!.rows), transactions: Number(row!.transactions) };
  };

  const tallies = (s: SubscriptionStatus[]) => s.find((status) => status.name === 'Tallies')!;

  /**
   * Waits until `count` messages are handled and committed. The probe notes a run when the handler
   * returns, before its transaction commits; the subscription counts it after the commit.
   */
  const committed = (count: number) => eventually(() => tallies(engine!.subscriptionStatuses()).handled === count, 30_000);

  async function expectEveryKeyOnceInOrder(ids: string[], events: number, probe: Probe): Promise<void> {
    const rows = await db.query<{ id: string; seen: number; last: number }>('SELECT id, seen, last FROM tally');
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) expect({ seen: Number(row.seen), last: Number(row.last) }).toEqual({ seen: events, last: events });
    for (const id of ids) expect(probe.handled.filter((tag) => tag.startsWith(`${id}:`))).toEqual(Array.from({ length: events }, (_, k) => `${id}:${k + 1}`));
    // The events the handler raised committed with its effects: one Tallied outbox row per handled message.
    const [outbox] = await db.query<{ count: string }>("SELECT count(*) FROM protean_outbox WHERE message_type LIKE '%Tallied%'");
    expect(Number(outbox!.count)).toBe(ids.length * events);
  }

  it('handles messages of different keys in shared transactions, each effect once and in its key order', async () => {
    const probe: Probe = { handled: [], runs: 0, failKeys: new Set(), keyOrder: new Map() };
    const ids = await run({ batch_size: 8, concurrency: 16, batch_max_wait_ms: 200 }, probe, 40, 3);
    await committed(120);
    await expectEveryKeyOnceInOrder(ids, 3, probe);

    const status = tallies(engine!.subscriptionStatuses());
    expect(status.handled).toBe(120);
    expect(status.batchedMessages).toBe(120);
    expect(status.batches).toBeLessThan(120);
    // PostgreSQL's own record: tally rows (inserted by the first message of each key) share transactions.
    const shared = await sharedTransactions();
    expect(shared.rows).toBe(40);
    expect(shared.transactions).toBeLessThan(40);
    expect(shared.transactions).toBeGreaterThanOrEqual(Math.ceil(40 / 8));
  });

  it('rolls a failing handler back to its own savepoint and retries it alone; the rest of its batch commits', async () => {
    // Two keys in the middle of the burst fail once each (their first and only event).
    const probe: Probe = { handled: [], runs: 0, failKeys: new Set([6, 18]), keyOrder: new Map() };
    const ids = await run({ batch_size: 8, concurrency: 16, batch_max_wait_ms: 200 }, probe, 24, 1);
    await committed(24);
    await expectEveryKeyOnceInOrder(ids, 1, probe);
    expect(probe.runs).toBe(26);
    const status = tallies(engine!.subscriptionStatuses());
    expect(status.retried).toBe(2);
    expect(status.deadLettered).toBe(0);
    // The retried ones ran alone, outside any batch; the others shared transactions.
    expect(status.batchedMessages).toBe(22);
    expect((await sharedTransactions()).transactions).toBeLessThanOrEqual(2 + Math.ceil(22 / 4));
  });

  it('rolls a whole batch back when a key it took on trust had moved elsewhere, and runs its messages again alone at once, no attempt spent', async () => {
    const probe: Probe = { handled: [], runs: 0, failKeys: new Set(), keyOrder: new Map() };
    let handledElsewhere = '';
    const ids = await run({ batch_size: 8, concurrency: 16, batch_max_wait_ms: 200 }, probe, 16, 1, false, async (noteIds) => {
      // Another worker has handled the first note's only message already (its checkpoint is there),
      // while this worker receives it as a first delivery: the key's first position, taken on trust.
      handledElsewhere = noteIds[0]!;
      const [row] = await db.query<{ partition_key: string }>('SELECT DISTINCT partition_key FROM protean_outbox WHERE data::text LIKE $1', [
        `%${handledElsewhere}%`,
      ]);
      await db.query("INSERT INTO protean_inbox_checkpoints (subscription, partition_key, last_sequence) VALUES ('Tallies', $1, 1)", [row!.partition_key]);
    });
    await eventually(() => {
      const status = tallies(engine!.subscriptionStatuses());
      return status.handled === 15 && status.duplicates === 1;
    }, 30_000);
    const status = tallies(engine!.subscriptionStatuses());
    expect(status.group).toBe('Tallies');
    // Its handler ran on trust, in a batch that was then refused whole; alone, the inbox found it a duplicate.
    expect(probe.handled).toContain(`${handledElsewhere}:1`);
    expect({ retried: status.retried, deadLettered: status.deadLettered }).toEqual({ retried: 0, deadLettered: 0 });
    // Every other effect once (some ran twice: first in the refused batch, then alone), none for the duplicate.
    const rows = await db.query<{ id: string; seen: number }>('SELECT id, seen FROM tally');
    expect(rows.map((row) => row.id).sort()).toEqual(ids.slice(1).sort());
    for (const row of rows) expect(Number(row.seen)).toBe(1);
    const [outbox] = await db.query<{ count: string }>("SELECT count(*) FROM protean_outbox WHERE message_type LIKE '%Tallied%'");
    expect(Number(outbox!.count)).toBe(15);
  });

  it('never batches a handler that asked for its own transaction', async () => {
    const probe: Probe = { handled: [], runs: 0, failKeys: new Set(), keyOrder: new Map() };
    const ids = await run({ batch_size: 8, concurrency: 16 }, probe, 16, 2, true);
    await committed(32);
    await expectEveryKeyOnceInOrder(ids, 2, probe);
    const status = tallies(engine!.subscriptionStatuses());
    expect(status.batches).toBe(0);
    expect(await sharedTransactions()).toEqual({ rows: 16, transactions: 16 });
  });
});
