/**
 * A transaction's outbox append waits for its commit and takes the COMMIT along in the same round
 * trip (deferred-statements.ts, connection/pipelined-prefix.ts). A failing append skips the
 * COMMIT: the transaction rolls back whole and the connection is clean for its next user. Watched
 * on the wire of the pool's only connection.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, RowFactory, servicesUp } from '@protean-ts/conformance';
import type { PostgresProvider, PostgresTransaction } from '../src/index.js';
import { ProviderFixture } from './support/postgres-provider-fixture.js';
import { queryDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

/** node-postgres's wire connection, as far as watched here. */
interface PgWire {
  parse(message: { text: string; name?: string }): void;
  query(text: string): void;
  on(event: 'readyForQuery', listener: () => void): void;
  off(event: 'readyForQuery', listener: () => void): void;
  submittedNamedStatements?: Record<string, string>;
  parsedStatements: Record<string, string>;
  bind(config: { statement?: string }): void;
}

interface Wire {
  roundTrips: number;
  /** Statements executed, in order: each Bind's statement text (prepared ones too), each simple query's. */
  executed: string[];
  stop(): void;
}

function watch(tx: PostgresTransaction): Wire {
  const wire = (tx as unknown as { connection: { connection: PgWire } }).connection.connection;
  const seen: Wire = { roundTrips: 0, executed: [], stop: () => undefined };
  const { parse, bind, query } = wire;
  let unnamed = '';
  const ready = () => seen.roundTrips++;
  wire.parse = function (this: unknown, message) {
    if (!message.name) unnamed = message.text;
    return parse.call(this, message);
  };
  wire.bind = function (this: unknown, config) {
    seen.executed.push(config.statement ? (wire.parsedStatements[config.statement] ?? wire.submittedNamedStatements?.[config.statement] ?? '') : unnamed);
    return bind.call(this, config);
  };
  wire.query = function (this: unknown, text) {
    seen.executed.push(...text.split(';\n'));
    return query.call(this, text);
  };
  wire.on('readyForQuery', ready);
  seen.stop = () => {
    wire.parse = parse;
    wire.bind = bind;
    wire.query = query;
    wire.off('readyForQuery', ready);
  };
  return seen;
}

describe.skipIf(!up)('the COMMIT rides with the outbox append', () => {
  const fixture = new ProviderFixture({ pool_size: 1 });
  let provider: PostgresProvider;
  const notes = () => provider.qualify('notes');
  const outboxKeys = async () =>
    (await queryDatabase<{ partition_key: string }>(fixture.db.uri, `SELECT partition_key FROM ${provider.qualify('protean_outbox')} ORDER BY id`)).map(
      (row) => row.partition_key,
    );
  const bodies = async () => (await queryDatabase<{ body: string }>(fixture.db.uri, `SELECT body FROM ${notes()} ORDER BY body`)).map((row) => row.body);

  beforeAll(async () => {
    provider = await fixture.start();
    await provider.setupOutbox();
    await provider.execute(`CREATE TABLE ${notes()} (body text PRIMARY KEY)`);
  });
  afterAll(async () => {
    await fixture.stop();
  });
  beforeEach(async () => {
    await provider.execute(`TRUNCATE ${notes()}, ${provider.qualify('protean_outbox')}, ${provider.qualify('protean_outbox_positions')}`);
  });

  it('sends the append and COMMIT in one round trip after the unit of work’s own statements', async () => {
    const rows = new RowFactory();
    const tx = await provider.begin();
    const wire = watch(tx);
    await tx.execute(`INSERT INTO ${notes()} (body) VALUES (?)`, ['placed']);
    await provider.outbox.append(tx, [rows.row('order-1', 1), rows.row('order-1', 2)]);
    // Nothing went out for the append yet.
    expect(wire.roundTrips).toBe(1);
    await tx.commit();
    wire.stop();
    expect(wire.roundTrips).toBe(2);
    expect(wire.executed).toEqual([
      'BEGIN',
      expect.stringContaining(`INSERT INTO ${notes()}`),
      expect.stringMatching(/INSERT INTO [^ ]*protean_outbox\b/),
      'COMMIT',
    ]);
    expect(await bodies()).toEqual(['placed']);
    expect(await outboxKeys()).toEqual([rows.key('order-1'), rows.key('order-1')]);
  });

  it('sends BEGIN, the append and COMMIT in a single round trip when the append is all the transaction does', async () => {
    const rows = new RowFactory();
    const tx = await provider.begin();
    const wire = watch(tx);
    await provider.outbox.append(tx, [rows.row('order-2', 1)]);
    await tx.commit();
    wire.stop();
    expect(wire.roundTrips).toBe(1);
    expect(wire.executed).toEqual(['BEGIN', expect.stringMatching(/INSERT INTO [^ ]*protean_outbox\b/), 'COMMIT']);
    expect(await outboxKeys()).toEqual([rows.key('order-2')]);
  });

  it('rolls everything back when the append fails at the commit (a message id twice), and the connection is clean for the next user', async () => {
    const rows = new RowFactory();
    const row = rows.row('order-3', 1);
    const first = await provider.begin();
    await provider.outbox.append(first, [row]);
    await first.commit();

    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${notes()} (body) VALUES (?)`, ['lost with the append']);
    await provider.outbox.append(tx, [{ ...row, partitionKey: rows.key('order-4') }]);
    await expect(tx.commit()).rejects.toThrow(/already|duplicate/i);
    expect(await bodies()).toEqual([]);
    expect(await outboxKeys()).toEqual([rows.key('order-3')]);

    const next = await provider.begin();
    await next.execute(`INSERT INTO ${notes()} (body) VALUES (?)`, ['next']);
    await next.commit();
    expect(await bodies()).toEqual(['next']);
  });

  it('runs the deferred append before the EntityManager’s flush and COMMIT when the transaction opened one', async () => {
    const rows = new RowFactory();
    const tx = await provider.begin();
    await provider.outbox.append(tx, [rows.row('order-5', 1)]);
    const em = await tx.entityManager();
    await em.execute(`INSERT INTO ${notes()} (body) VALUES ('through the EntityManager')`);
    await tx.commit();
    expect(await bodies()).toEqual(['through the EntityManager']);
    expect(await outboxKeys()).toEqual([rows.key('order-5')]);
  });

  it('drops a deferred append when the transaction rolls back', async () => {
    const rows = new RowFactory();
    const tx = await provider.begin();
    await tx.execute(`INSERT INTO ${notes()} (body) VALUES (?)`, ['rolled back']);
    await provider.outbox.append(tx, [rows.row('order-6', 1)]);
    await tx.rollback();
    expect(await bodies()).toEqual([]);
    expect(await outboxKeys()).toEqual([]);
  });
});
