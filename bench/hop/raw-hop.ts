/**
 * The baseline: the same hop written by hand with `pg` and `ioredis`. XREADGROUP in batches
 * (read ahead up to `batch` held messages), up to `concurrency` keys at once and one message at
 * a time per key in stream order (what the framework guarantees), each message: BEGIN, SELECT
 * the counter FOR UPDATE, UPDATE it, INSERT one outbox row, COMMIT, XACK. No inbox (no
 * duplicate or order check across redeliveries), no checksum, no retries, no dead letters.
 */
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { newMessageId } from '@protean-ts/core';

export interface RawTables {
  counter: string;
  outbox: string;
}

interface RawMessage {
  id: string;
  key: string;
  sourceId: string;
  n: number;
  correlationId: string;
}

const UNSET = Symbol('unset');

export class RawHop {
  handled = 0;
  /** The first failure: the run reports it instead of the process crashing on an unhandled rejection. */
  failure: Error | null = null;
  private readonly queues = new Map<string, RawMessage[]>();
  private readonly ready: string[] = [];
  private held = 0;
  private active = 0;
  private stopped = false;
  private wakeReader: (() => void) | typeof UNSET = UNSET;
  private reader: Promise<void> | null = null;
  private readonly selectSql: string;
  private readonly updateSql: string;
  private readonly insertSql: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly redis: Redis,
    private readonly streamKey: string,
    private readonly group: string,
    private readonly concurrency: number,
    private readonly batch: number,
    tables: RawTables,
  ) {
    this.selectSql = `SELECT source_id, count, last_tick, _version FROM ${tables.counter} WHERE source_id = $1 FOR UPDATE`;
    this.updateSql = `UPDATE ${tables.counter} SET count = $2, last_tick = $3, _version = _version + 1 WHERE source_id = $1`;
    this.insertSql = `INSERT INTO ${tables.outbox} (message_id, stream_name, partition_key, sequence, message_type, data, metadata, target_broker, max_retries, correlation_id, causation_id)
      VALUES ($1, 'hop::counter', $2, $3, 'Hop.CounterBumped.v1', $4, $5, 'default', 5, $6, $7)`;
  }

  async start(): Promise<void> {
    await this.redis.xgroup('CREATE', this.streamKey, this.group, '0', 'MKSTREAM').catch((error: Error) => {
      if (!error.message.startsWith('BUSYGROUP')) throw error;
    });
    this.reader = this.read().catch((error: Error) => {
      this.failure ??= error;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.signal();
    await this.reader;
    while (this.active > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private signal(): void {
    const wake = this.wakeReader;
    this.wakeReader = UNSET;
    if (wake !== UNSET) wake();
  }

  private async read(): Promise<void> {
    while (!this.stopped) {
      if (this.held >= this.batch) {
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
        continue;
      }
      const reply = (await this.redis.xreadgroup('GROUP', this.group, 'raw', 'COUNT', this.batch - this.held, 'BLOCK', 500, 'STREAMS', this.streamKey, '>')) as
        [string, [string, string[]][]][] | null;
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) this.enqueue(id, fields);
      }
    }
  }

  private enqueue(id: string, fields: string[]): void {
    const envelope = JSON.parse(fields[fields.indexOf('envelope') + 1]!) as {
      data: { sourceId: string; n: number };
      metadata: { headers: { id: string }; envelope: { position: { key: string } } };
    };
    const message = {
      id,
      key: envelope.metadata.envelope.position.key,
      sourceId: envelope.data.sourceId,
      n: envelope.data.n,
      correlationId: envelope.metadata.headers.id,
    };
    this.held += 1;
    const queue = this.queues.get(message.key);
    if (queue) {
      queue.push(message);
      return;
    }
    this.queues.set(message.key, [message]);
    this.ready.push(message.key);
    this.pump();
  }

  private pump(): void {
    while (this.active < this.concurrency && this.ready.length > 0) {
      this.active += 1;
      this.runKey(this.ready.shift()!).catch((error: Error) => {
        this.failure ??= error;
      });
    }
  }

  private async runKey(key: string): Promise<void> {
    const queue = this.queues.get(key)!;
    try {
      while (queue.length > 0) {
        await this.hop(queue[0]!);
        queue.shift();
        this.held -= 1;
        this.handled += 1;
        this.signal();
      }
      this.queues.delete(key);
    } finally {
      this.active -= 1;
      this.pump();
    }
  }

  private async hop(message: RawMessage): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ count: number | string; _version: string }>(this.selectSql, [message.sourceId]);
      const counter = rows[0];
      if (!counter) throw new Error(`raw hop: no counter ${message.sourceId}`);
      const count = Number(counter.count) + 1;
      // bigint columns come back as strings.
      const version = Number(counter._version) + 1;
      await client.query(this.updateSql, [message.sourceId, count, message.n]);
      const messageId = newMessageId();
      const data = { sourceId: message.sourceId, count };
      const metadata = {
        headers: { id: messageId, time: new Date().toISOString(), type: 'Hop.CounterBumped.v1', stream: `hop::counter-${message.sourceId}` },
        envelope: { specversion: '1.0' },
        domain: {
          fqn: 'Hop.CounterBumped',
          kind: 'EVENT',
          streamCategory: 'hop::counter',
          version: 1,
          sequenceId: `${version}.0`,
          correlationId: message.correlationId,
          causationId: message.correlationId,
        },
      };
      await client.query(this.insertSql, [
        messageId,
        `hop::counter-${message.sourceId}`,
        version,
        JSON.stringify(data),
        JSON.stringify(metadata),
        message.correlationId,
        message.correlationId,
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.redis.xack(this.streamKey, this.group, message.id);
  }
}
