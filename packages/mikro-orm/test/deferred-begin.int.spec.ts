/**
 * A transaction's BEGIN goes out with its first statement, in one round trip; a transaction that
 * ran nothing sends nothing. Watched on the wire of the pool's only connection: each round trip
 * ends in one ReadyForQuery, and every message goes through the connection's socket.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { configureLogging, TransactionStateError } from '@protean-ts/core';
import type { PostgresProvider, PostgresTransaction } from '../src/index.js';
import { PREPARED } from '../src/sql-executor.js';
import { ProviderFixture } from './support/postgres-provider-fixture.js';

const up = await servicesUp(POSTGRES);

/** node-postgres's client and its wire connection, as far as watched here. */
interface PgClient {
  connection: {
    stream: { write(...args: unknown[]): boolean };
    parse(message: { text: string; name?: string }): void;
    on(event: 'readyForQuery', listener: () => void): void;
    off(event: 'readyForQuery', listener: () => void): void;
  };
}

interface Wire {
  roundTrips: number;
  writes: number;
  parses: { text: string; name?: string }[];
  stop(): void;
}

function watch(tx: PostgresTransaction): Wire {
  const connection = (tx as unknown as { connection: PgClient }).connection.connection;
  const wire: Wire = { roundTrips: 0, writes: 0, parses: [], stop: () => undefined };
  const { stream, parse } = connection;
  const write = stream.write;
  const ready = () => wire.roundTrips++;
  stream.write = function (this: unknown, ...args: unknown[]) {
    wire.writes++;
    return write.apply(this, args);
  };
  connection.parse = function (this: unknown, message) {
    wire.parses.push({ text: message.text, name: message.name });
    return parse.call(this, message);
  };
  connection.on('readyForQuery', ready);
  wire.stop = () => {
    stream.write = write;
    connection.parse = parse;
    connection.off('readyForQuery', ready);
  };
  return wire;
}

describe.skipIf(!up)('deferred BEGIN', () => {
  // One connection, so every transaction and statement here meets the previous one's leftovers.
  const fixture = new ProviderFixture({ pool_size: 1, debug: true });
  let provider: PostgresProvider;
  const logLines: string[] = [];
  let restoreLogging: ReturnType<typeof configureLogging>;
  const table = () => provider.qualify('notes');
  const count = async () => (await provider.execute<{ n: number }>(`SELECT count(*)::int AS n FROM ${table()}`)).rows[0]!.n;

  beforeAll(async () => {
    restoreLogging = configureLogging({ level: 'debug', sink: (line) => logLines.push(line) });
    provider = await fixture.start();
    await provider.execute(`CREATE TABLE ${table()} (id serial PRIMARY KEY, body text NOT NULL)`);
  });
  afterAll(async () => {
    await fixture.stop();
    configureLogging(restoreLogging);
  });
  beforeEach(async () => {
    await provider.execute(`TRUNCATE ${table()}`);
  });

  it('sends BEGIN with the first statement in one round trip, and the statement runs inside the transaction', async () => {
    const tx = await provider.begin();
    const wire = watch(tx);
    expect(wire.writes).toBe(0);
    const first = await tx.execute<{ xid: string }>(`INSERT INTO ${table()} (body) VALUES (?) RETURNING txid_current()::text AS xid`, ['first']);
    expect(wire.roundTrips).toBe(1);
    expect(wire.parses.map((p) => p.text)).toEqual(['BEGIN', expect.stringContaining('INSERT INTO')]);
    const second = await tx.execute<{ xid: string }>('SELECT txid_current()::text AS xid');
    expect(second.rows[0]!.xid).toBe(first.rows[0]!.xid);
    expect(first.rowCount).toBe(1);
    await tx.rollback();
    wire.stop();
    expect(await count()).toBe(0);
    expect(logLines.some((line) => line.includes('INSERT INTO') && line.includes('withBegin'))).toBe(true);
  });

  it('sends a first statement without parameters as one simple query after BEGIN', async () => {
    const tx = await provider.begin();
    const wire = watch(tx);
    const inserted = await tx.execute<{ body: string }>(`INSERT INTO ${table()} (body) VALUES ('plain') RETURNING body`);
    expect(wire.roundTrips).toBe(1);
    expect(inserted.rows).toEqual([{ body: 'plain' }]);
    expect((await tx.execute<{ state: string }>('SELECT txid_current_if_assigned() IS NOT NULL AS state')).rows[0]!.state).toBe(true);
    await tx.rollback();
    wire.stop();
    expect(await count()).toBe(0);
  });

  it('commits and rolls back a transaction that ran nothing without sending anything, and the connection stays usable', async () => {
    let committed = false;
    const empty = await provider.begin();
    const wire = watch(empty);
    empty.afterCommit(() => (committed = true));
    await empty.commit();
    expect(committed).toBe(true);
    const rolledBack = await provider.begin();
    await rolledBack.rollback();
    expect(wire.writes).toBe(0);
    expect(wire.roundTrips).toBe(0);
    wire.stop();

    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['after']);
    await tx.commit();
    expect(await count()).toBe(1);
    expect((await provider.execute<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('rolls back after a failing first statement, and the next user of the connection starts clean', async () => {
    const tx = await provider.begin();
    await expect(tx.execute(`INSERT INTO ${table()} (body) VALUES (?)`, [null])).rejects.toThrow(/null value/);
    const wire = watch(tx);
    const error = await tx.commit().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionStateError);
    expect((error as Error).message).toMatch(/failed \(null value .*\), so PostgreSQL aborted it; it was rolled back/);
    expect(wire.writes).toBe(1); // the ROLLBACK
    wire.stop();

    expect((await provider.execute<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    const next = await provider.begin();
    await next.execute(`INSERT INTO ${table()} (body) VALUES (?)`, ['next']);
    await next.commit();
    expect(await count()).toBe(1);
  });

  it('prepares a first statement once per connection: the second transaction binds it without a Parse', async () => {
    const insert = `INSERT INTO ${table()} (body) VALUES (?) RETURNING body`;
    const namedParses: string[] = [];
    for (const body of ['one', 'two']) {
      const tx = await provider.begin();
      const wire = watch(tx);
      expect((await tx.execute<{ body: string }>(insert, [body], PREPARED)).rows).toEqual([{ body }]);
      await tx.commit();
      expect(wire.roundTrips).toBe(2); // the statement with BEGIN, then COMMIT
      namedParses.push(...wire.parses.filter((p) => p.name).map((p) => p.name!));
      wire.stop();
    }
    expect(namedParses).toHaveLength(1);
    expect(await count()).toBe(2);
  });

  it('does not count a prepared first statement whose Parse failed as prepared', async () => {
    const select = `SELECT count(*)::int AS n FROM ${provider.qualify('later')} WHERE id > ?`;
    const tx = await provider.begin();
    await expect(tx.execute(select, [0], PREPARED)).rejects.toThrow(/does not exist/);
    await tx.rollback();

    await provider.execute(`CREATE TABLE ${provider.qualify('later')} (id int)`);
    const retry = await provider.begin();
    const wire = watch(retry);
    expect((await retry.execute<{ n: number }>(select, [0], PREPARED)).rows).toEqual([{ n: 0 }]);
    expect(wire.parses.filter((p) => p.name)).toHaveLength(1);
    await retry.commit();
    wire.stop();
  });
});
