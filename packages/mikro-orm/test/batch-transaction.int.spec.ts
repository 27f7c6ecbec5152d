/**
 * A batched transaction: several units of work share one PostgreSQL transaction, each in a
 * savepoint of its own, and one COMMIT. A failing unit of work rolls back only its own savepoint;
 * after-commit callbacks wait for the batch's COMMIT; and a savepoint costs no round trip of its
 * own (SAVEPOINT rides with its first statement, nothing is RELEASEd). Round trips and statements
 * are counted on the wire of the pool's only connection.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, RowFactory, servicesUp } from '@protean-ts/conformance';
import { configureLogging, TransactionStateError } from '@protean-ts/core';
import type { PostgresProvider } from '../src/index.js';
import { sqlTransactionOf } from '../src/index.js';
import type { PostgresBatchTransaction } from '../src/batch/postgres-batch-transaction.js';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { queryDatabase } from './support/temp-database.js';
import { Customer, shop } from './support/shop-model.js';

const up = await servicesUp(POSTGRES);

/** node-postgres's wire connection, as far as watched here. */
interface PgWire {
  parse(message: { text: string; name?: string }): void;
  query(text: string): void;
  on(event: 'readyForQuery', listener: () => void): void;
  off(event: 'readyForQuery', listener: () => void): void;
}

interface Wire {
  roundTrips: number;
  /** Every statement sent: each Parse of the extended protocol, each statement of a simple query. */
  statements: string[];
  stop(): void;
}

function watch(batch: PostgresBatchTransaction): Wire {
  const wire = (batch as unknown as { connection: { connection: { connection: PgWire } } }).connection.connection.connection;
  const seen: Wire = { roundTrips: 0, statements: [], stop: () => undefined };
  const { parse, query } = wire;
  const ready = () => seen.roundTrips++;
  wire.parse = function (this: unknown, message) {
    seen.statements.push(message.text);
    return parse.call(this, message);
  };
  wire.query = function (this: unknown, text) {
    seen.statements.push(...text.split(';\n'));
    return query.call(this, text);
  };
  wire.on('readyForQuery', ready);
  seen.stop = () => {
    wire.parse = parse;
    wire.query = query;
    wire.off('readyForQuery', ready);
  };
  return seen;
}

/** Counts executions (Binds) of statements whose text contains `fragment`, prepared ones included. */
function executionsOf(batch: PostgresBatchTransaction, fragment: string): { count: number; stop(): void } {
  const wire = (batch as unknown as { connection: { connection: { connection: PgBindWire } } }).connection.connection.connection;
  const seen = { count: 0, stop: () => undefined as void };
  const { parse, bind } = wire;
  let unnamed = '';
  wire.parse = function (this: unknown, message) {
    if (!message.name) unnamed = message.text;
    return parse.call(this, message);
  };
  wire.bind = function (this: unknown, config) {
    const text = config.statement ? (wire.parsedStatements[config.statement] ?? wire.submittedNamedStatements?.[config.statement] ?? '') : unnamed;
    if (text.includes(fragment)) seen.count++;
    return bind.call(this, config);
  };
  seen.stop = () => {
    wire.parse = parse;
    wire.bind = bind;
  };
  return seen;
}

interface PgBindWire {
  parse(message: { text: string; name?: string }): void;
  bind(config: { statement?: string }): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements?: Record<string, string>;
}

describe.skipIf(!up)('batched transaction', () => {
  // One connection, so a batch that leaked its connection or left it mid-transaction shows at once.
  const fixture = new ProviderFixture({ pool_size: 1, debug: true });
  let provider: PostgresProvider;
  const logLines: string[] = [];
  let restoreLogging: ReturnType<typeof configureLogging>;
  const table = () => provider.qualify('notes');
  const insert = () => `INSERT INTO ${table()} (body) VALUES (?)`;
  /** Through a connection of its own: the pool's only one may be held by a batch. */
  const bodiesSeenElsewhere = async () => (await queryDatabase<{ body: string }>(fixture.db.uri, `SELECT body FROM ${table()} ORDER BY id`)).map((r) => r.body);
  const bodies = async () => (await provider.execute<{ body: string }>(`SELECT body FROM ${table()} ORDER BY id`)).rows.map((r) => r.body);

  beforeAll(async () => {
    restoreLogging = configureLogging({ level: 'debug', sink: (line) => logLines.push(line) });
    provider = await fixture.start();
    await provider.execute(`CREATE TABLE ${table()} (id serial PRIMARY KEY, body text NOT NULL UNIQUE)`);
  });
  afterAll(async () => {
    await fixture.stop();
    configureLogging(restoreLogging);
  });
  beforeEach(async () => {
    await provider.execute(`TRUNCATE ${table()}`);
  });

  it("commits two savepoints' inserts together with one COMMIT, invisible until then", async () => {
    const batch = await provider.beginBatch();
    const wire = watch(batch);
    const first = await batch.savepoint();
    await first.execute(insert(), ['one']);
    await first.commit();
    const second = await batch.savepoint();
    await second.execute(insert(), ['two']);
    await second.commit();
    expect(wire.statements).not.toContain('COMMIT');
    expect(await bodiesSeenElsewhere()).toEqual([]);
    await batch.commit();
    wire.stop();
    expect(wire.statements.filter((s) => s === 'COMMIT')).toHaveLength(1);
    expect(await bodies()).toEqual(['one', 'two']);
  });

  it('sends 1 + N statements and one COMMIT for N savepoints of one insert each: no standalone SAVEPOINT, no RELEASE', async () => {
    const n = 5;
    const batch = await provider.beginBatch();
    const wire = watch(batch);
    for (let i = 1; i <= n; i++) {
      const savepoint = await batch.savepoint();
      await savepoint.execute(insert(), [`row ${i}`]);
      await savepoint.commit();
    }
    await batch.commit();
    wire.stop();
    expect(wire.roundTrips).toBe(n + 1);
    const expected = ['BEGIN'];
    for (let i = 1; i <= n; i++) expected.push(`SAVEPOINT s${i}`, expect.stringContaining('INSERT INTO') as unknown as string);
    expect(wire.statements).toEqual([...expected, 'COMMIT']);
    expect(wire.statements.some((s) => /RELEASE/i.test(s))).toBe(false);
    expect(await bodies()).toHaveLength(n);
    expect(logLines.some((line) => line.includes('INSERT INTO') && line.includes('SAVEPOINT s1') && line.includes('BEGIN'))).toBe(true);
  });

  it("holds a projection once per batch: a released savepoint's FOR SHARE lasts to the batch's end, a rolled-back one's does not", async () => {
    await provider.setupSchema([], { outbox: true });
    await provider.execute(`INSERT INTO ${provider.qualify('protean_projections')} (projection) VALUES ('P'), ('R') ON CONFLICT DO NOTHING`);
    const batch = await provider.beginBatch();
    const holds = executionsOf(batch, 'FOR SHARE');
    try {
      const first = await batch.savepoint();
      expect(await provider.projections.holdForProjector(first, 'P')).toBe(false);
      await first.commit();
      const second = await batch.savepoint();
      expect(await provider.projections.holdForProjector(second, 'P')).toBe(false);
      await second.commit();
      expect(holds.count).toBe(1);

      const third = await batch.savepoint();
      await provider.projections.holdForProjector(third, 'R');
      await third.rollback(); // its lock goes with it: the next savepoint takes it again
      const fourth = await batch.savepoint();
      await provider.projections.holdForProjector(fourth, 'R');
      await fourth.commit();
      expect(holds.count).toBe(3);

      // P is still held from the first savepoint: a rebuild's mark (another connection) waits for the batch.
      const marking = queryDatabase(
        fixture.db.uri,
        `SET lock_timeout = '300ms'; UPDATE ${provider.qualify('protean_projections')} SET rebuilding = true WHERE projection = 'P'`,
      );
      await expect(marking).rejects.toThrow(/lock timeout/);
      await batch.commit();
    } finally {
      holds.stop();
      await batch.rollback();
    }
  });

  it("rolls back only the savepoint whose statement failed (unique violation); the others' work commits", async () => {
    const batch = await provider.beginBatch();
    const first = await batch.savepoint();
    await first.execute(insert(), ['a']);
    await first.commit();

    const second = await batch.savepoint();
    await second.execute(insert(), ['b']);
    await expect(second.execute(insert(), ['a'])).rejects.toThrow(/duplicate key/);
    const error = await second.commit().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionStateError);
    expect((error as Error).message).toMatch(
      /savepoint s2 of the batched transaction of database "default" failed \(duplicate key .*\).*rolled back to the savepoint/,
    );
    expect(second.isActive).toBe(false);

    const third = await batch.savepoint();
    await third.execute(insert(), ['c']);
    await third.commit();
    await batch.commit();
    expect(await bodies()).toEqual(['a', 'c']);
  });

  it("rolls back a savepoint explicitly (once, however often asked), keeping the others' work", async () => {
    const batch = await provider.beginBatch();
    const first = await batch.savepoint();
    await first.execute(insert(), ['kept']);
    await first.commit();
    const second = await batch.savepoint();
    await second.execute(insert(), ['undone']);
    await second.rollback();
    await second.rollback();
    await expect(second.execute(insert(), ['late'])).rejects.toThrow(/savepoint s2 .* is already rolled back/);
    const untouched = await batch.savepoint();
    await untouched.rollback(); // ran nothing: sends nothing
    await batch.commit();
    expect(await bodies()).toEqual(['kept']);
  });

  it('runs after-commit callbacks after the batch COMMIT only: not after a savepoint commit, never on a rolled-back savepoint or batch', async () => {
    const ran: string[] = [];
    const batch = await provider.beginBatch();
    const first = await batch.savepoint();
    await first.execute(insert(), ['x']);
    first.afterCommit(() => ran.push('first'));
    const shared = () => ran.push('shared');
    first.afterCommit(shared);
    await first.commit();
    expect(ran).toEqual([]);
    const second = await batch.savepoint();
    second.afterCommit(() => ran.push('rolled-back savepoint'));
    second.afterCommit(shared);
    await second.rollback();
    const third = await batch.savepoint();
    third.afterCommit(shared);
    await third.commit();
    expect(ran).toEqual([]);
    await batch.commit();
    expect(ran).toEqual(['first', 'shared']);
    expect(await bodies()).toEqual(['x']);

    const rolledBack = await provider.beginBatch();
    const lost = await rolledBack.savepoint();
    await lost.execute(insert(), ['y']);
    lost.afterCommit(() => ran.push('batch rolled back'));
    await lost.commit();
    await rolledBack.rollback();
    expect(ran).toEqual(['first', 'shared']);
  });

  it('drops every savepoint’s work when the batch rolls back, an open savepoint’s too; rollback is idempotent', async () => {
    const batch = await provider.beginBatch();
    const first = await batch.savepoint();
    await first.execute(insert(), ['one']);
    await first.commit();
    const open = await batch.savepoint();
    await open.execute(insert(), ['two']);
    const waiting = batch.savepoint().catch((error: unknown) => error);
    await batch.rollback();
    await batch.rollback();
    const refusal = await waiting;
    expect(refusal).toBeInstanceOf(TransactionStateError);
    expect((refusal as Error).message).toMatch(/batched transaction of database "default" is already rolled back/);
    expect(open.isActive).toBe(false);
    await expect(batch.savepoint()).rejects.toThrow(TransactionStateError);
    expect(await bodies()).toEqual([]);
  });

  it('does not hand out the next savepoint until the previous one has committed, and refuses to commit while one is open', async () => {
    const batch = await provider.beginBatch();
    const first = await batch.savepoint();
    await first.execute(insert(), ['first']);
    let secondOpened = false;
    const second = batch.savepoint().then((savepoint) => {
      secondOpened = true;
      return savepoint;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(secondOpened).toBe(false);
    await expect(batch.commit()).rejects.toThrow(/its savepoint s1 is still open/);
    await first.commit();
    const opened = await second;
    expect(opened.name).toBe('s2');
    await opened.execute(insert(), ['second']);
    await opened.commit();
    await batch.commit();
    expect(await bodies()).toEqual(['first', 'second']);
  });

  it('sends nothing for a batch that ran no statement, commits it, and the connection stays usable', async () => {
    let committed = false;
    const batch = await provider.beginBatch();
    const wire = watch(batch);
    const savepoint = await batch.savepoint();
    savepoint.afterCommit(() => (committed = true));
    await savepoint.commit();
    await batch.commit();
    wire.stop();
    expect(committed).toBe(true);
    expect(wire.roundTrips).toBe(0);
    expect(wire.statements).toEqual([]);
    await expect(batch.commit()).rejects.toThrow(/already committed/);
    expect((await provider.execute<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('takes a savepoint as the transaction of the outbox, the inbox and a DAO', async () => {
    await fixture.fresh([shop.aggregateSchemaFor(Customer)]);
    const rows = new RowFactory();
    const batch = await provider.beginBatch();
    for (const sequence of [1, 2]) {
      const savepoint = await batch.savepoint();
      await provider.outbox.append(savepoint, [rows.row('k', sequence)]);
      const verdict = await provider.inbox.enter(savepoint, {
        subscription: 'batched',
        position: { key: 'k', sequence },
        messageId: `m${sequence}`,
        brokerMessageId: `b${sequence}`,
      });
      expect(verdict).toEqual({ kind: 'next' });
      await provider.dao(shop.aggregateSchemaFor(Customer), savepoint).save(Customer.create({ name: `c${sequence}` }), -1);
      await savepoint.commit();
    }
    const checkpoints = `SELECT count(*)::int AS n FROM ${provider.qualify('protean_inbox_checkpoints')}`;
    expect(await queryDatabase(fixture.db.uri, checkpoints)).toEqual([{ n: 0 }]);
    await batch.commit();
    expect(await provider.inbox.checkpoint('batched', 'k')).toBe(2);
    const outbox = await provider.execute<{ n: number }>(`SELECT count(*)::int AS n FROM ${provider.qualify('protean_outbox')} WHERE partition_key = ?`, [
      rows.key('k'),
    ]);
    expect(outbox.rows[0]!.n).toBe(2);
    expect(await provider.dao(shop.aggregateSchemaFor(Customer)).count()).toBe(2);
  });

  it("appends every released savepoint's outbox rows in one statement just before COMMIT, and none of a rolled-back savepoint", async () => {
    await fixture.fresh([]);
    const rows = new RowFactory();
    const batch = await provider.beginBatch();
    // The provider's debug log names every statement, prepared ones too (a Parse goes out only once per connection).
    const outboxAppends = () => logLines.filter((line) => line.includes('"msg":"sql"') && /INSERT INTO [^ ]*protean_outbox\b/.test(line)).length;
    const appendsBefore = outboxAppends();
    const wire = watch(batch);
    try {
      for (const [sequence, keep] of [
        [1, true],
        [2, false],
        [3, true],
      ] as const) {
        const savepoint = await batch.savepoint();
        await savepoint.execute(insert(), [`note ${sequence}`]);
        await provider.outbox.append(savepoint, [rows.row(`k${sequence}`, 1), rows.row(`k${sequence}`, 2)]);
        if (keep) await savepoint.commit();
        else await savepoint.rollback();
      }
      // Nothing of the outbox went out yet: the appends wait for the commit.
      expect(outboxAppends()).toBe(appendsBefore);
      const roundTrips = wire.roundTrips;
      await batch.commit();
      expect(outboxAppends()).toBe(appendsBefore + 1);
      // The append with the COMMIT right behind it: one round trip for the whole batch.
      expect(wire.roundTrips - roundTrips).toBe(1);
      expect(wire.statements.at(-1)).toBe('COMMIT');
    } finally {
      wire.stop();
    }
    const written = await provider.execute<{ partition_key: string; sequence: string }>(
      `SELECT partition_key, sequence FROM ${provider.qualify('protean_outbox')} ORDER BY partition_key, sequence`,
    );
    expect(written.rows.map((row) => `${row.partition_key}:${row.sequence}`)).toEqual([
      `${rows.key('k1')}:1`,
      `${rows.key('k1')}:2`,
      `${rows.key('k3')}:1`,
      `${rows.key('k3')}:2`,
    ]);
    expect(await bodies()).toEqual(['note 1', 'note 3']);
  });

  it('rolls the whole batch back, and says why, when the merged outbox append fails (a message id twice)', async () => {
    await fixture.fresh([]);
    const rows = new RowFactory();
    const row = rows.row('dup', 1);
    const batch = await provider.beginBatch();
    for (const text of ['first', 'second']) {
      const savepoint = await batch.savepoint();
      await savepoint.execute(insert(), [text]);
      await provider.outbox.append(savepoint, [row]);
      await savepoint.commit();
    }
    await expect(batch.commit()).rejects.toThrow(/already|duplicate/i);
    expect(await bodiesSeenElsewhere()).toEqual([]);
    expect(await bodies()).toEqual([]);
  });

  it('is a PostgreSQL transaction to sqlTransactionOf, but refuses the EntityManager and says what to do instead', async () => {
    const batch = await provider.beginBatch();
    const savepoint = await batch.savepoint();
    const tx = sqlTransactionOf(savepoint);
    await tx.execute(insert(), ['through sqlTransactionOf']);
    await expect(tx.entityManager()).rejects.toThrow(/ownTransaction: true.*batch_size = 1/);
    await tx.commit();
    await batch.commit();
    expect(await bodies()).toEqual(['through sqlTransactionOf']);
  });
  // Last: it kills the pool's only connection.
  it('refuses to commit, and to open more savepoints, once rolling back to a savepoint failed (connection lost)', async () => {
    const batch = await provider.beginBatch();
    const first = await batch.savepoint();
    await first.execute(insert(), ['before the loss']);
    await first.commit();
    const second = await batch.savepoint();
    const { rows } = await second.execute<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await queryDatabase(fixture.db.uri, 'SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await expect(second.execute(insert(), ['lost'])).rejects.toThrow();
    await expect(second.commit()).rejects.toThrow(TransactionStateError);
    await expect(batch.savepoint()).rejects.toThrow(/rolling back to savepoint s2 .* failed .*; roll the batch back/);
    await expect(batch.commit()).rejects.toThrow(/rolling back to its savepoint s2 failed .*the whole batch was rolled back/);
    expect(await bodiesSeenElsewhere()).toEqual([]);
  });
});
