/**
 * Event-sourced aggregates on PostgreSQL through the public API: events appended in the unit of
 * work's transaction together with their outbox rows, two writers racing on one stream (one
 * wins, the other gets an ExpectedVersionError), as-of loads, and snapshots.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeBank, servicesUp, POSTGRES } from '@protean-ts/conformance';
import {
  ChecksumMismatchError,
  configureLogging,
  ExpectedVersionError,
  ObjectNotFoundError,
  ReadOnlyAggregateError,
  StreamVersionError,
} from '@protean-ts/core';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('event-sourced repository on PostgreSQL', () => {
  let db: TempDatabase;
  const bank = makeBank();
  const repo = () => bank.domain.repositoryFor(bank.Account);
  const provider = () => bank.domain.providers.get('default') as PostgresProvider;
  const streamOf = (id: string) => `bank::account-${id}`;
  const rows = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) => queryDatabase<R>(db.uri, sql, params);
  let restoreLogging: ReturnType<typeof configureLogging>;

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTempDatabase('es_repo');
    await bank.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 6 } },
        brokers: { default: { provider: 'inline' } },
        snapshot_threshold: 3,
      },
    });
    await provider().setupOutbox();
  });
  afterAll(async () => {
    await bank.domain.close();
    await db?.drop();
    configureLogging(restoreLogging);
  });
  beforeEach(async () => {
    await rows(
      'TRUNCATE protean_events, protean_event_streams, protean_snapshots, protean_event_store_subscriptions, protean_event_store_dead_letters, protean_outbox',
    );
  });

  async function openedWith(...deposits: number[]) {
    const account = bank.Account.open('Ann');
    for (const amount of deposits) account.deposit(amount);
    await repo().add(account);
    return account;
  }

  it('appends the events and writes their outbox rows in the same transaction; get replays them', async () => {
    const account = await openedWith(10, 5);
    const events = await rows<{ position: string; type: string; message_id: string }>(
      'SELECT position, type, message_id FROM protean_events WHERE stream_name = $1 ORDER BY position',
      [streamOf(account.id)],
    );
    expect(events.map((e) => [Number(e.position), e.type])).toEqual([
      [0, 'Bank.Opened.v1'],
      [1, 'Bank.Deposited.v1'],
      [2, 'Bank.Deposited.v1'],
    ]);
    const outbox = await rows<{ message_id: string; partition_key: string }>('SELECT message_id, partition_key FROM protean_outbox');
    expect(outbox.map((r) => r.message_id).sort()).toEqual(events.map((e) => e.message_id).sort());
    expect(new Set(outbox.map((r) => r.partition_key))).toEqual(new Set([streamOf(account.id)]));
    const loaded = await repo().get(account.id);
    expect([loaded.owner, loaded.balance, loaded._version]).toEqual(['Ann', 15, 2]);
    await expect(repo().get('nobody')).rejects.toThrow(ObjectNotFoundError);
  });

  it('refuses a stored event altered after it was written (checksum), rather than applying it', async () => {
    const account = await openedWith(5);
    await rows("UPDATE protean_events SET data = jsonb_set(data, '{amount}', '500') WHERE stream_name = $1 AND position = 1", [streamOf(account.id)]);
    await expect(repo().get(account.id)).rejects.toThrow(ChecksumMismatchError);
  });

  it('a unit of work that fails after the append leaves neither events nor outbox rows', async () => {
    const account = await openedWith();
    const loaded = await repo().get(account.id);
    await expect(
      bank.domain.uow(async () => {
        loaded.deposit(3);
        await repo().add(loaded);
        throw new Error('fails after the append');
      }),
    ).rejects.toThrow('fails after the append');
    expect(await provider().eventStore.streamVersion(streamOf(account.id))).toBe(0);
    expect(await rows('SELECT 1 FROM protean_outbox')).toHaveLength(1);
  });

  it('two writers racing on one stream through the repository: one wins, the other gets an ExpectedVersionError', async () => {
    const account = await openedWith();
    let loadedBoth!: () => void;
    const bothLoaded = new Promise<void>((resolve) => {
      let waiting = 2;
      loadedBoth = () => {
        waiting -= 1;
        if (waiting === 0) resolve();
      };
    });
    const writer = (amount: number) =>
      bank.domain.uow(async () => {
        const mine = await repo().get(account.id);
        loadedBoth();
        await bothLoaded;
        mine.deposit(amount);
        await repo().add(mine);
      });
    const outcomes = await Promise.allSettled([writer(1), writer(2)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ExpectedVersionError);
    expect(lost.reason).toBeInstanceOf(StreamVersionError);
    const loaded = await repo().get(account.id);
    expect(loaded._version).toBe(1);
    expect([1, 2]).toContain(loaded.balance);
    expect(await rows('SELECT 1 FROM protean_outbox')).toHaveLength(2);
  });

  it('as-of loads by version and by time are read-only', async () => {
    const account = await openedWith(10);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const between = new Date();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const later = await repo().get(account.id);
    later.deposit(20);
    await repo().add(later);

    expect((await repo().get(account.id, { atVersion: 0 })).balance).toBe(0);
    const asOf = await repo().get(account.id, { asOf: between });
    expect([asOf.balance, asOf._version]).toEqual([10, 1]);
    expect((await repo().get(account.id)).balance).toBe(30);
    expect(() => asOf.deposit(1)).toThrow(ReadOnlyAggregateError);
    await expect(repo().get(account.id, { asOf: new Date(0) })).rejects.toThrow(ObjectNotFoundError);
  });

  it('a load replaying snapshot_threshold events writes a snapshot; the next load starts from it', async () => {
    const account = await openedWith(1, 2);
    await repo().get(account.id);
    const saved = await rows<{ version: string; data: Record<string, unknown> }>('SELECT version, data FROM protean_snapshots WHERE stream_name = $1', [
      streamOf(account.id),
    ]);
    expect(saved.map((s) => [Number(s.version), s.data])).toEqual([[2, { id: account.id, owner: 'Ann', balance: 3 }]]);

    const more = await repo().get(account.id);
    more.deposit(4);
    await repo().add(more);
    const reads = vi.spyOn(provider().eventStore, 'readStream');
    try {
      const loaded = await repo().get(account.id);
      expect(reads.mock.calls.map((call) => call[1]?.from)).toEqual([3]);
      expect([loaded.balance, loaded._version]).toEqual([7, 3]);
    } finally {
      reads.mockRestore();
    }
  });
});
