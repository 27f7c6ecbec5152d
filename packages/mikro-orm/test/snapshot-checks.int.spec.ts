/**
 * Snapshots on PostgreSQL are checked on load (issue 22): rows edited by hand with SQL (forged
 * data, a version beyond the stream's, another account's snapshot copied onto a stream, data
 * that does not validate, a row of before the checksum column) are each ignored with a WARN
 * naming them; the aggregate loads from its events, the row is replaced and the next write
 * succeeds. `setupEventStore` (`db setup`) adds the checksum column to an older table.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeBank, servicesUp, POSTGRES } from '@protean-ts/conformance';
import { configureLogging, snapshotChecksum, type LoggingSettings } from '@protean-ts/core';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

type Warning = { logger: string; msg: string; stream?: string; version?: number; reason?: string };

describe.skipIf(!up)('snapshot checks on PostgreSQL', () => {
  let db: TempDatabase;
  const bank = makeBank();
  const repo = () => bank.domain.repositoryFor(bank.Account);
  const provider = () => bank.domain.providers.get('default') as PostgresProvider;
  const streamOf = (id: string) => `bank::account-${id}`;
  const sql = <R extends Record<string, unknown>>(text: string, params: unknown[] = []) => queryDatabase<R>(db.uri, text, params);
  let restoreLogging: LoggingSettings;
  const warnings: Warning[] = [];

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: (_line, record) => void (record.level === 'warn' && warnings.push(record as unknown as Warning)) });
    db = await createTempDatabase('snapshot_checks');
    await bank.domain.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
        snapshot_threshold: 2,
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
    await sql('TRUNCATE protean_events, protean_event_streams, protean_snapshots, protean_outbox');
    warnings.length = 0;
  });

  /** An account of Ann with these deposits, loaded once so its snapshot row is written. */
  async function snapshotted(...deposits: number[]): Promise<string> {
    const account = bank.Account.open('Ann');
    for (const amount of deposits) account.deposit(amount);
    await repo().add(account);
    await repo().get(account.id);
    const [row] = await snapshotRow(account.id);
    expect(row).toMatchObject({ version: String(deposits.length), checksum: expect.stringMatching(/^[0-9a-f]{64}$/) });
    return account.id;
  }

  const snapshotRow = (id: string) =>
    sql<{ version: string; type: string; data: Record<string, unknown>; checksum: string | null }>(
      'SELECT version, type, data, checksum FROM protean_snapshots WHERE stream_name = $1',
      [streamOf(id)],
    );

  /** One WARN naming the row, the state of the events, a valid row in its place, and a write that succeeds. */
  async function expectRebuilt(id: string, badVersion: number, reason: RegExp, balance: number, version: number) {
    const loaded = await repo().get(id);
    expect([loaded.id, loaded.owner, loaded.balance, loaded._version]).toEqual([id, 'Ann', balance, version]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ logger: 'repository', stream: streamOf(id), version: badVersion, reason: expect.stringMatching(reason) });
    expect(warnings[0]!.msg).toMatch(`snapshot of ${streamOf(id)} at version ${badVersion} ignored`);
    const [row] = await snapshotRow(id);
    expect(Number(row!.version)).toBe(version);
    expect(row!.checksum).toBe(snapshotChecksum({ streamName: streamOf(id), version, type: row!.type, data: row!.data }));
    loaded.deposit(1);
    await repo().add(loaded);
    const after = await repo().get(id);
    expect([after.balance, after._version, warnings.length]).toEqual([balance + 1, version + 1, 1]);
  }

  it('forged data (a balance edited with SQL) fails the checksum', async () => {
    const id = await snapshotted(10, 5);
    await sql(`UPDATE protean_snapshots SET data = jsonb_set(data, '{balance}', '1000000') WHERE stream_name = $1`, [streamOf(id)]);
    await expectRebuilt(id, 2, /checksum does not match/, 15, 2);
  });

  it("version 999999 (beyond the stream's) is ignored, and writes to the stream keep succeeding", async () => {
    const id = await snapshotted(10, 5);
    await sql('UPDATE protean_snapshots SET version = 999999 WHERE stream_name = $1', [streamOf(id)]);
    await expectRebuilt(id, 999_999, /version 999999 is beyond the stream's current version 2/, 15, 2);
  });

  it("another account's snapshot copied onto a stream is ignored; the write goes to the stream's own account", async () => {
    const other = await snapshotted(500, 500);
    const id = await snapshotted(10, 5);
    await sql(
      `UPDATE protean_snapshots AS s SET version = o.version, type = o.type, data = o.data, checksum = o.checksum
       FROM protean_snapshots AS o WHERE s.stream_name = $1 AND o.stream_name = $2`,
      [streamOf(id), streamOf(other)],
    );
    await expectRebuilt(id, 2, /aggregate id .* is not the stream's/, 15, 2);
    const versions = await sql<{ stream_name: string; version: string }>('SELECT stream_name, version FROM protean_event_streams ORDER BY version');
    expect(versions.map((v) => [v.stream_name, Number(v.version)])).toEqual([
      [streamOf(other), 2],
      [streamOf(id), 3],
    ]);
    expect((await repo().get(other)).balance).toBe(1000);
  });

  it('malformed data is ignored: altered (checksum), or sealed but not valid as an Account (validation)', async () => {
    const id = await snapshotted(10, 5);
    await sql(`UPDATE protean_snapshots SET data = '"not an account"'::jsonb WHERE stream_name = $1`, [streamOf(id)]);
    await expectRebuilt(id, 2, /data is not an object/, 15, 2);

    warnings.length = 0;
    const malformed = { id, owner: ['Ann'], balance: 'lots' };
    const checksum = snapshotChecksum({ streamName: streamOf(id), version: 3, type: 'Bank.Account.v1', data: malformed });
    await sql('UPDATE protean_snapshots SET version = 3, data = $2::jsonb, checksum = $3 WHERE stream_name = $1', [
      streamOf(id),
      JSON.stringify(malformed),
      checksum,
    ]);
    await expectRebuilt(id, 3, /data does not validate as Account/, 16, 3);
  });

  it('setupEventStore (db setup) adds the checksum column to an older table; its rows, without one, are ignored and replaced', async () => {
    const id = await snapshotted(10, 5);
    await sql('ALTER TABLE protean_snapshots DROP COLUMN checksum');
    await provider().setupEventStore();
    const [column] = await sql<{ is_nullable: string }>(
      "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'protean_snapshots' AND column_name = 'checksum'",
    );
    expect(column).toEqual({ is_nullable: 'YES' });
    await expectRebuilt(id, 2, /no checksum/, 15, 2);
  });

  it('a snapshot that checks out is used: no warning, the load reads only the events after it', async () => {
    const id = await snapshotted(10, 5);
    const loaded = await repo().get(id);
    expect([loaded.balance, loaded._version]).toEqual([15, 2]);
    expect(warnings).toEqual([]);
  });
});
