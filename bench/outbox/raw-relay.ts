/**
 * The baseline: what a careful hand-written relay does with `pg` and the broker's own client and
 * nothing else. Its own table (same columns, a plain partial index on pending rows), a claim with
 * SKIP LOCKED in id order, one raw publish per batch (Redis: one XADD pipeline; NATS: concurrent
 * JetStream publishes; RabbitMQ: the whole batch on one confirm channel), one UPDATE to mark the
 * batch. No per-key ordering, no failure handling, no NOTIFY: an idle loop polls every `idleMs`.
 */
import type pg from 'pg';
import type { RawPublisher } from '../brokers/bench-broker.js';
import type { BenchRow } from './bench-rows.js';

export const RAW_TABLE = 'raw_outbox';

export async function createRawTable(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE ${RAW_TABLE} (
    id bigserial PRIMARY KEY, message_id text NOT NULL, stream_name text NOT NULL, partition_key text NOT NULL,
    sequence bigint NOT NULL, message_type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
    target_broker text NOT NULL, status text NOT NULL DEFAULT 'pending', retry_count integer NOT NULL DEFAULT 0,
    locked_until timestamptz, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)`);
  await pool.query(`CREATE INDEX ${RAW_TABLE}_pending_idx ON ${RAW_TABLE} (id) WHERE status = 'pending'`);
}

const INSERT = `INSERT INTO ${RAW_TABLE} (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker)
  SELECT r.message_id, r.stream_name, r.partition_key, r.sequence, r.message_type, r.data, r.metadata, r.target_broker
  FROM jsonb_to_recordset($1::jsonb) AS r(message_id text, stream_name text, partition_key text, sequence bigint,
    message_type text, data jsonb, metadata jsonb, target_broker text)`;

function payload(rows: readonly BenchRow[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      message_id: r.messageId,
      stream_name: r.streamName,
      partition_key: r.partitionKey,
      sequence: r.sequence,
      message_type: r.messageType,
      data: r.envelope.data,
      metadata: r.envelope.metadata,
      target_broker: r.targetBroker,
    })),
  );
}

/** Inserts rows in one transaction, as a commit would. */
export async function commitRaw(pool: pg.Pool, rows: readonly BenchRow[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(INSERT, [payload(rows)]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

export class RawRelay {
  private running = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly publisher: RawPublisher,
    private readonly prefix: string,
    private readonly batch: number,
    private readonly idleMs: number,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const { rows } = await this.pool.query<{ id: string; stream_name: string; message_id: string; message_type: string; data: unknown; metadata: unknown }>(
        `UPDATE ${RAW_TABLE} SET status = 'processing', locked_until = now() + interval '30 seconds'
         WHERE id IN (SELECT id FROM ${RAW_TABLE} WHERE status = 'pending' ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING id, stream_name, message_id, message_type, data, metadata`,
        [this.batch],
      );
      if (rows.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, this.idleMs));
        continue;
      }
      await this.publisher.publish(
        this.prefix,
        rows.map((row) => ({
          stream: row.stream_name,
          messageId: row.message_id,
          messageType: row.message_type,
          envelope: JSON.stringify({ data: row.data, metadata: row.metadata }),
        })),
      );
      await this.pool.query(`UPDATE ${RAW_TABLE} SET status = 'published', published_at = now(), locked_until = NULL WHERE id = ANY($1::bigint[])`, [
        rows.map((r) => r.id),
      ]);
    }
  }
}
