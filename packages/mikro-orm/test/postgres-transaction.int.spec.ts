/**
 * The transaction object the unit of work (and the outbox) writes through: statements inside it
 * are invisible outside until COMMIT, a failed statement makes COMMIT refuse instead of silently
 * rolling back, and a finished transaction cannot be used again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { MemoryProvider, TransactionStateError } from '@protean-ts/core';
import { PostgresProvider, sqlTransactionOf } from '../src/index.js';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { Order, shop } from './support/shop-model.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL transactions', () => {
  const fixture = new ProviderFixture();
  let provider: PostgresProvider;
  const table = () => provider.qualify('notes');
  const count = async () => (await provider.execute<{ n: number }>(`SELECT count(*)::int AS n FROM ${table()}`)).rows[0]!.n;

  beforeAll(async () => {
    provider = await fixture.start();
    await provider.execute(`CREATE TABLE ${table()} (id serial PRIMARY KEY, body text NOT NULL, tags jsonb)`);
  });
  afterAll(() => fixture.stop());
  beforeEach(async () => {
    await provider.execute(`TRUNCATE ${table()}`);
  });

  it('keeps its writes invisible to others until it commits', async () => {
    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['hello']);
    expect((await tx.execute<{ n: number }>(`SELECT count(*)::int AS n FROM ${table()}`)).rows[0]!.n).toBe(1);
    expect(await count()).toBe(0);
    await tx.commit();
    expect(await count()).toBe(1);
  });

  it('discards its writes on rollback, and a second rollback does nothing', async () => {
    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['lost']);
    await tx.rollback();
    await tx.rollback();
    expect(await count()).toBe(0);
  });

  it('refuses to commit after a statement failed, and leaves nothing behind', async () => {
    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['before the failure']);
    await expect(tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, [null])).rejects.toThrow(/null value/);
    const error = await tx.commit().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionStateError);
    expect((error as Error).message).toMatch(
      /a statement in the transaction of database "default" failed \(null value .*\), so PostgreSQL aborted it; it was rolled back/,
    );
    expect(await count()).toBe(0);
  });

  it('runs afterCommit callbacks once each after the commit is visible, and never after a rollback', async () => {
    const seen: number[] = [];
    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['signalled']);
    const visible = () => {
      // Another connection reads the row: the callback runs after COMMIT, not before.
      void count().then((n) => seen.push(n));
    };
    tx.afterCommit(visible);
    tx.afterCommit(visible);
    expect(seen).toEqual([]);
    await tx.commit();
    await expect.poll(() => seen).toEqual([1]);

    let calledAfterRollback = false;
    const rolledBack = await provider.begin();
    rolledBack.afterCommit(() => (calledAfterRollback = true));
    await rolledBack.rollback();
    expect(calledAfterRollback).toBe(false);
    expect(() => rolledBack.afterCommit(() => undefined)).toThrow(TransactionStateError);
  });

  it('cannot be used once finished', async () => {
    const tx = await provider.begin();
    await tx.commit();
    await expect(tx.execute('SELECT 1')).rejects.toThrow(TransactionStateError);
    await expect(tx.commit()).rejects.toThrow(/already committed/);
  });

  it('binds ? placeholders, keeps \\? literal and leaves ? inside quotes alone', async () => {
    await provider.execute(`INSERT INTO ${table()} (body, tags) VALUES (?, ?::jsonb)`, ["it's ? fine", JSON.stringify({ vip: true })]);
    const { rows } = await provider.execute<{ body: string; vip: boolean; lit: string }>(
      `SELECT body, tags \\? 'vip' AS vip, 'a ? in quotes' AS lit FROM ${table()} WHERE body = ?`,
      ["it's ? fine"],
    );
    expect(rows).toEqual([{ body: "it's ? fine", vip: true, lit: 'a ? in quotes' }]);
  });

  it('flushes a forked EntityManager into the same transaction', async () => {
    const tx = await provider.begin();
    const em = await tx.entityManager();
    await em.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['via MikroORM']);
    await tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['via execute']);
    expect(await count()).toBe(0);
    await tx.commit();
    expect(await count()).toBe(2);
  });

  it('stays closed after close() until connect() opens it again', async () => {
    const other = new PostgresProvider('second', { provider: 'postgresql', database_uri: fixture.db.uri, managed: true, pool_size: 1 });
    await other.connect();
    await other.close();
    expect(await other.ping()).toBe(false);
    await expect(other.begin()).rejects.toThrow(/PostgreSQL database "second" is closed; call connect\(\)/);
    await other.connect();
    expect(await other.ping()).toBe(true);
    await other.close();
  });

  it('refuses a transaction opened by another provider', async () => {
    const other = new MemoryProvider('elsewhere');
    const foreign = await other.begin();
    expect(() => provider.dao(shop.aggregateSchemaFor(Order), foreign)).toThrow(/was given a transaction of "elsewhere"/);
    expect(() => sqlTransactionOf(foreign)).toThrow(TransactionStateError);
    await foreign.rollback();
  });
});
