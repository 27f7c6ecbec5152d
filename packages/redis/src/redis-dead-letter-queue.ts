/**
 * The dead-letter stream `<prefix><stream>:dlq` of the Redis broker: moving a failed message
 * there (atomically with its ack), listing, replaying and purging. It is never trimmed: dead
 * letters wait for an operator, so only `purge` removes them.
 */
import type { Redis } from 'ioredis';
import type { DeadLetter, ReceivedMessage } from '@protean-ts/core';
import { isRedisConnectionError } from './redis-connection-errors.js';
import { deadLetterFields, toDeadLetter, undecodableDeadLetterFields, type RawEntry } from './redis-entry-codec.js';
import { repliesOrThrow, type PipelineResults } from './redis-replies.js';
import { deadLetterPending, queueReplay } from './redis-scripts.js';

const REPLAY_CHUNK = 500;

export class RedisDeadLetterQueue {
  constructor(
    private readonly client: () => Redis,
    private readonly streamKey: (stream: string) => string,
  ) {}

  key(stream: string): string {
    return `${this.streamKey(stream)}:dlq`;
  }

  /** XADD to the DLQ, then XACK, in one script: never acked without its dead letter. */
  async add(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    const fields = deadLetterFields(stream, group, message, error, new Date().toISOString());
    await deadLetterPending(this.client(), this.key(stream), this.streamKey(stream), group, message.id, fields);
  }

  /** The same for an entry `read` or `reclaim` could not decode: its raw fields stand in for the envelope. */
  async addUndecodable(stream: string, group: string, entry: { id: string; fields: string[] }, error: string, deliveryCount: number): Promise<void> {
    const fields = undecodableDeadLetterFields(stream, group, entry, error, new Date().toISOString(), deliveryCount);
    await deadLetterPending(this.client(), this.key(stream), this.streamKey(stream), group, entry.id, fields);
  }

  async list(stream: string, count: number): Promise<DeadLetter[]> {
    const entries = (await this.client().call('XRANGE', this.key(stream), '-', '+', 'COUNT', count)) as RawEntry[];
    return entries.map(toDeadLetter);
  }

  /** Replays the given dead letters (all when `ids` is undefined), oldest first; counts those replayed (letters without an envelope stay). */
  async replay(stream: string, ids: readonly string[] | undefined): Promise<number> {
    const targets = ids ?? (await this.allIds(stream));
    let replayed = 0;
    for (let start = 0; start < targets.length; start += REPLAY_CHUNK) {
      const pipeline = this.client().pipeline();
      for (const id of targets.slice(start, start + REPLAY_CHUNK)) {
        queueReplay(pipeline, this.key(stream), this.streamKey(stream), id);
      }
      const replies = repliesOrThrow((await pipeline.exec()) as PipelineResults, isRedisConnectionError);
      replayed += replies.filter((reply) => reply !== null).length;
    }
    return replayed;
  }

  async purge(stream: string): Promise<number> {
    const results = await this.client().multi().call('XLEN', this.key(stream)).call('DEL', this.key(stream)).exec();
    const [length] = repliesOrThrow(results as PipelineResults, isRedisConnectionError);
    return Number(length);
  }

  // Ids present now; letters added while replaying wait for the next replay.
  private async allIds(stream: string): Promise<string[]> {
    const ids: string[] = [];
    let start = '-';
    for (;;) {
      const page = (await this.client().call('XRANGE', this.key(stream), start, '+', 'COUNT', REPLAY_CHUNK)) as RawEntry[];
      ids.push(...page.map(([id]) => id));
      if (page.length < REPLAY_CHUNK) return ids;
      start = `(${page[page.length - 1]![0]}`;
    }
  }
}
