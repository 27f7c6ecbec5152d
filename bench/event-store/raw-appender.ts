/**
 * The baseline: the rows the PostgreSQL event store writes for a new stream, written with
 * node-postgres directly into copies of its tables (`LIKE … INCLUDING ALL`: the identity global
 * position, the `pg_current_xact_id()` default, the primary keys and reader indexes), same pool
 * size. One commit is what a hand-written event store does with the same expected-version check
 * as the framework's (`-1`: the stream must not exist): BEGIN; insert the stream's row with
 * ON CONFLICT DO NOTHING, no row back = the check failed; one multi-row INSERT of the events;
 * COMMIT. Event times are taken by PostgreSQL as the framework's are.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const RAW_EVENTS = 'raw_events';
export const RAW_STREAMS = 'raw_event_streams';
const CATEGORY = 'bench::bench_account';
// The length of a sha-256 hex checksum: the raw rows carry the same metadata shape, not a real digest.
const CHECKSUM = 'c'.repeat(64);

export class RawAppender {
  private readonly pool: pg.Pool;
  private readonly inserts = new Map<number, string>();

  constructor(uri: string, poolSize: number) {
    this.pool = new pg.Pool({ connectionString: uri, max: poolSize });
    // An idle client killed under the pool (the database is dropped at the end) must not crash the run.
    this.pool.on('error', () => undefined);
  }

  /** Copies the framework's tables (columns, identity, defaults, indexes) under `raw_` names. */
  async createTables(events: string, streams: string): Promise<void> {
    await this.pool.query(`CREATE TABLE ${RAW_EVENTS} (LIKE ${events} INCLUDING ALL)`);
    await this.pool.query(`CREATE TABLE ${RAW_STREAMS} (LIKE ${streams} INCLUDING ALL)`);
  }

  /** One commit: a new stream of `count` events (an opening and deposits), expected version -1. */
  async appendNewStream(count: number): Promise<void> {
    const accountId = randomUUID();
    const stream = `${CATEGORY}-${accountId}`;
    const params: unknown[] = [];
    for (let position = 0; position < count; position++) {
      const opening = position === 0;
      const type = opening ? 'Bench.BenchOpened.v1' : 'Bench.BenchDeposited.v1';
      const id = randomUUID();
      const data = opening ? { owner: 'Ann', accountId } : { amount: 10, accountId };
      params.push(stream, CATEGORY, position, id, type, data, metadataOf(id, type, stream, position));
    }
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const bumped = await client.query(
        `INSERT INTO ${RAW_STREAMS} (stream_name, version) VALUES ($1, $2) ON CONFLICT (stream_name) DO NOTHING RETURNING version`,
        [stream, count - 1],
      );
      if (bumped.rowCount !== 1) throw new Error(`raw append: stream ${stream} exists (expected version -1)`);
      await client.query(this.insertText(count), params);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Events, streams, and streams whose version is not their event count - 1 or whose positions have gaps. */
  async stored(): Promise<{ events: number; streams: number; inconsistent: number }> {
    return storedCounts(this.pool, RAW_EVENTS, RAW_STREAMS);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private insertText(count: number): string {
    let text = this.inserts.get(count);
    if (text === undefined) {
      const rows = Array.from({ length: count }, (_, row) => {
        const p = (column: number) => `$${row * 7 + column}`;
        return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, date_trunc('milliseconds', clock_timestamp()))`;
      });
      text = `INSERT INTO ${RAW_EVENTS} (stream_name, category, position, message_id, type, data, metadata, time) VALUES ${rows.join(', ')}`;
      this.inserts.set(count, text);
    }
    return text;
  }
}

/** The metadata document the framework stores with an event, with the same keys and value sizes. */
function metadataOf(id: string, type: string, stream: string, position: number): Record<string, unknown> {
  return {
    domain: {
      fqn: type.slice(0, type.lastIndexOf('.')),
      kind: 'EVENT',
      version: 1,
      published: false,
      sequenceId: `${position}.1`,
      causationId: null,
      correlationId: null,
      streamCategory: CATEGORY,
      expectedVersion: position - 1,
    },
    headers: { id, time: new Date().toISOString(), type, stream, traceparent: null },
    envelope: { checksum: CHECKSUM, specversion: '1.0' },
    extensions: {},
  };
}

/** Counts of one side's tables, and how many streams disagree with their events (must be 0). */
export async function storedCounts(pool: pg.Pool, events: string, streams: string): Promise<{ events: number; streams: number; inconsistent: number }> {
  const { rows } = await pool.query<{ events: number; streams: number; inconsistent: number }>(`
SELECT (SELECT count(*)::int FROM ${events}) AS events,
       (SELECT count(*)::int FROM ${streams}) AS streams,
       (SELECT count(*)::int FROM ${streams} s
          LEFT JOIN (SELECT stream_name, count(*) AS n, min(position) AS first, max(position) AS last FROM ${events} GROUP BY stream_name) e
            ON e.stream_name = s.stream_name
         WHERE e.n IS NULL OR e.first <> 0 OR e.last <> s.version OR e.n <> s.version + 1) AS inconsistent`);
  return rows[0]!;
}
