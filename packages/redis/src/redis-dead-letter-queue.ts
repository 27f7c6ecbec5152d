/**
 * The dead-letter stream `<prefix><stream>:dlq` of the Redis broker: moving a failed message
 * there (atomically with its ack), listing, replaying and purging. It is never trimmed: dead
 * letters wait for an operator, so only `purge` removes them.
 */
import type { Redis } from 'ioredis';
import type { DeadLetter, ReceivedMessage } from '@protean-ts/core';
import { isRedisConnectionError } from './redis-connection-errors.js';
import { failureFields, fallbackEnvelopeFields, fallbackRawFields, toDeadLetter, type RawEntry } from './redis-entry-codec.js';
import type { RedisEntryFormat } from './redis-entry-format.js';
import { repliesOrThrow, type PipelineResults } from './redis-replies.js';
import { deadLetterPending, queueReplay } from './redis-scripts.js';

const REPLAY_CHUNK = 500;

export class RedisDeadLetterQueue {
  constructor(
    private readonly client: () => Redis,
    private readonly streamKey: (stream: string) => string,
    private readonly format: RedisEntryFormat,
  ) {}

  key(stream: string): string {
    return `${this.streamKey(stream)}:dlq`;
  }

  /** XADD to the DLQ, then XACK, in one script: never acked without its dead letter. */
  async add(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    const raw = this.format.rawDeadLetters;
    await deadLetterPending(this.client(), this.keys(stream), group, message.id, {
      mode: raw ? 'raw' : 'envelope',
      fallback: raw ? fallbackRawFields(this.format.fields(message.envelope)) : fallbackEnvelopeFields(message.envelope),
      failure: failureFields(message.id, stream, group, error, new Date().toISOString(), message.deliveryCount),
    });
  }

  /** The same for an entry `read` or `reclaim` could not decode: its raw fields stand in for the envelope (replay leaves it). */
  async addUndecodable(stream: string, group: string, entry: { id: string; fields: string[] }, error: string, deliveryCount: number): Promise<void> {
    await deadLetterPending(this.client(), this.keys(stream), group, entry.id, {
      mode: 'raw',
      fallback: fallbackRawFields(entry.fields),
      failure: failureFields(entry.id, stream, group, error, new Date().toISOString(), deliveryCount),
    });
  }

  /** The last resort for an entry that could not be dead-lettered on any delivery: ack it without a letter. */
  async ackWithoutLetter(stream: string, group: string, id: string): Promise<void> {
    await this.client().call('XACK', this.streamKey(stream), group, id);
  }

  private keys(stream: string): { dlq: string; stream: string } {
    return { dlq: this.key(stream), stream: this.streamKey(stream) };
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
