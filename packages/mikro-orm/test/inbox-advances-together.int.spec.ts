/**
 * Inbox checkpoints advanced together at a batch's commit (inbox/advances-together.ts): a first
 * delivery that is its key's first position, or the position after the one this process
 * committed, is taken on trust in a batch and its checkpoint moves, checked in the database, in
 * the COMMIT's round trip. A trust that no longer holds refuses the whole batch; redeliveries,
 * jumps over gaps and transactions of their own are decided at once. Against a real PostgreSQL;
 * checkpoints are read on a connection of their own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import type { InboxEntry } from '@protean-ts/core';
import { PostgresProvider, sqlTransactionOf } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('inbox checkpoints advanced together in a batch', () => {
  let db: TempDatabase;
  let provider: PostgresProvider;
  /** Another worker's process: a provider of its own on the same database. */
  let otherWorker: PostgresProvider;
  // A subscription of its own per test: the provider remembers what it committed per subscription.
  let subscription = '';
  let batches = 0;
  const entry = (key: string, sequence: number, redelivered = false): InboxEntry => ({
    subscription,
    position: { key, sequence },
    messageId: `${key}-${sequence}`,
    brokerMessageId: `${key}-${sequence}-delivery`,
    redelivered,
  });
  const checkpoints = async () =>
    Object.fromEntries(
      (
        await queryDatabase<{ partition_key: string; last_sequence: string }>(
          db.uri,
          `SELECT partition_key, last_sequence FROM protean_inbox_checkpoints WHERE subscription = $1 ORDER BY partition_key`,
          [subscription],
        )
      ).map((row) => [row.partition_key, Number(row.last_sequence)]),
    );
  /** The messages whose notes were kept, without the batch they were written in. */
  const notes = async () =>
    (await queryDatabase<{ body: string }>(db.uri, 'SELECT body FROM notes WHERE body LIKE $1 ORDER BY body', [`${subscription}:%`])).map((row) =>
      row.body.slice(subscription.length + 1).replace(/@\d+$/, ''),
    );

  beforeAll(async () => {
    db = await createTempDatabase('inbox_together');
    provider = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 4 });
    await provider.connect();
    await provider.setupOutbox();
    await provider.execute('CREATE TABLE notes (body text PRIMARY KEY)');
    otherWorker = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await otherWorker.connect();
  });
  afterAll(async () => {
    await otherWorker?.close();
    await provider?.close();
    await db?.drop();
  });
  beforeEach(({ task }) => {
    subscription = `billing-${task.id}`;
  });

  /** One batch: each entry in a savepoint of its own, with a note written beside it; then the batch's commit. */
  async function batchOf(entries: InboxEntry[]): Promise<{ verdicts: string[]; seenInside: Record<string, number>; commit: Promise<void> }> {
    const batch = await provider.beginBatch();
    const batchNo = ++batches;
    const verdicts: string[] = [];
    try {
      for (const one of entries) {
        const savepoint = await batch.savepoint();
        verdicts.push((await provider.inbox.enter(savepoint, one)).kind);
        await sqlTransactionOf(savepoint).execute('INSERT INTO notes (body) VALUES (?)', [`${subscription}:${one.messageId}@${batchNo}`]);
        await savepoint.commit();
      }
      // Before the commit nothing is visible to others; the deferred advance has not run either.
      const seenInside = await checkpoints();
      return { verdicts, seenInside, commit: batch.commit() };
    } catch (error) {
      await batch.rollback();
      throw error;
    }
  }

  it("moves the first positions of new keys, and each key's next after this process committed its predecessor, with one statement at the commit", async () => {
    const first = await batchOf([entry('a', 1), entry('b', 1)]);
    expect(first.verdicts).toEqual(['next', 'next']);
    await first.commit;
    expect(await checkpoints()).toEqual({ a: 1, b: 1 });

    const second = await batchOf([entry('a', 2), entry('b', 2)]);
    expect(second.verdicts).toEqual(['next', 'next']);
    expect(second.seenInside).toEqual({ a: 1, b: 1 });
    await second.commit;
    expect(await checkpoints()).toEqual({ a: 2, b: 2 });
    expect(await notes()).toEqual(['a-1', 'a-2', 'b-1', 'b-2']);
  });

  it('refuses the whole batch when a key trusted as next had moved elsewhere: no note, no checkpoint of it is kept', async () => {
    await (
      await batchOf([entry('a', 1), entry('b', 1)])
    ).commit;
    // Another worker handles a:2 meanwhile (a transaction of its own decides at once).
    const elsewhere = await otherWorker.begin();
    expect((await otherWorker.inbox.enter(elsewhere, entry('a', 2))).kind).toBe('next');
    await elsewhere.commit();

    const stale = await batchOf([entry('b', 2), entry('a', 2)]);
    expect(stale.verdicts).toEqual(['next', 'next']);
    await expect(stale.commit).rejects.toThrow(/inbox of subscription "billing-[^"]+" could not advance key\(s\) .*"a".* at the commit/);
    expect(await checkpoints()).toEqual({ a: 2, b: 1 });
    expect(await notes()).toEqual(['a-1', 'b-1']);

    // Alone, the same message is found a duplicate before anything runs; b:2 is handled.
    const alone = await provider.begin();
    expect((await provider.inbox.enter(alone, entry('a', 2))).kind).toBe('duplicate');
    expect((await provider.inbox.enter(alone, entry('b', 2))).kind).toBe('next');
    await alone.commit();
    expect(await checkpoints()).toEqual({ a: 2, b: 2 });
  });

  it('decides at once in a transaction of its own: a key another worker moved is a duplicate before anything runs', async () => {
    const plain = async (one: InboxEntry) => {
      const tx = await provider.begin();
      const verdict = (await provider.inbox.enter(tx, one)).kind;
      if (verdict === 'next') await sqlTransactionOf(tx).execute('INSERT INTO notes (body) VALUES (?)', [`${subscription}:${one.messageId}@0`]);
      await tx.commit();
      return verdict;
    };
    expect(await plain(entry('a', 1))).toBe('next');
    expect(await plain(entry('a', 2))).toBe('next');
    const elsewhere = await otherWorker.begin();
    expect((await otherWorker.inbox.enter(elsewhere, entry('a', 3))).kind).toBe('next');
    await elsewhere.commit();
    // This process committed a:2 itself, yet alone a:3 is checked before its handler: a duplicate.
    expect(await plain(entry('a', 3))).toBe('duplicate');
    expect(await checkpoints()).toEqual({ a: 3 });
    expect(await notes()).toEqual(['a-1', 'a-2']);
  });

  it('refuses a batch holding a duplicate first position published twice', async () => {
    await (
      await batchOf([entry('a', 1)])
    ).commit;
    const twice = await batchOf([entry('c', 1), entry('a', 1)]);
    expect(twice.verdicts).toEqual(['next', 'next']);
    await expect(twice.commit).rejects.toThrow(/could not advance key\(s\) .*"a"/);
    expect(await checkpoints()).toEqual({ a: 1 });
    expect(await notes()).toEqual(['a-1']);
  });

  it('decides a redelivery, a key this process has not committed, and a jump over a gap at once, in the batch', async () => {
    await (
      await batchOf([entry('a', 1)])
    ).commit;
    const moved = await provider.begin();
    expect((await provider.inbox.enter(moved, entry('b', 1))).kind).toBe('next');
    await moved.commit();

    const batch = await batchOf([entry('a', 1, true), entry('b', 3), { ...entry('c', 4), jumpGap: true }]);
    // a:1 redelivered: a duplicate; b:3 with b at 1 here: early; c:4 jumps its gap now.
    expect(batch.verdicts).toEqual(['duplicate', 'early', 'next']);
    expect(batch.seenInside).toEqual({ a: 1, b: 1 });
    await batch.commit;
    expect(await checkpoints()).toEqual({ a: 1, b: 1, c: 4 });
  });
});
