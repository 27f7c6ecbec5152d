/**
 * Publishing to Redis streams: XADD (a batch in one pipeline), with the trim of a stream that is
 * due riding in the same round trip. A trim that fails leaves the messages published (they were):
 * logged, never thrown; entries a group had not consumed and the hard limit removed are logged as lost.
 */
import type { Redis } from 'ioredis';
import { BrokerBatchError, type Logger, type OutgoingMessage, type PublishResult } from '@protean-ts/core';
import { isRedisConnectionError } from './redis-connection-errors.js';
import type { RedisEntryFormat } from './redis-entry-format.js';
import { repliesOrThrow, type PipelineResults } from './redis-replies.js';
import { parseTrimReply, queueTrim, TrimSchedule, type TrimOutcome } from './redis-stream-trimming.js';

export interface RedisStreamPublisherOptions {
  brokerName: string;
  client: () => Redis;
  key: (stream: string) => string;
  format: RedisEntryFormat;
  maxlen: number;
  maxlenHard: number;
  log: Logger;
  redact: (text: string) => string;
  translate: (operation: string, error: unknown) => Error;
  /** Streams published to, for `info()`. */
  knownStreams: Set<string>;
}

export class RedisStreamPublisher {
  private readonly trims: TrimSchedule;

  constructor(private readonly options: RedisStreamPublisherOptions) {
    this.trims = new TrimSchedule(options.maxlen, options.maxlenHard);
  }

  async publish({ stream, envelope }: OutgoingMessage): Promise<string> {
    const { client, key, format } = this.options;
    this.options.knownStreams.add(stream);
    if (!this.trims.appended(stream, 1)) return (await client().call('XADD', key(stream), '*', ...format.fields(envelope))) as string;
    // Due for a trim: it rides in the same round trip.
    const pipeline = client()
      .pipeline()
      .call('XADD', key(stream), '*', ...format.fields(envelope));
    this.queueTrim(pipeline, stream);
    const [[error, id], trim] = ((await pipeline.exec()) ?? []) as [Error | null, unknown][];
    if (error) throw error;
    this.afterTrims([stream], [trim]);
    return id as string;
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    const { client, key, format } = this.options;
    const pipeline = client().pipeline();
    const appended = new Map<string, number>();
    for (const { stream, envelope } of messages) {
      this.options.knownStreams.add(stream);
      appended.set(stream, (appended.get(stream) ?? 0) + 1);
      pipeline.call('XADD', key(stream), '*', ...format.fields(envelope));
    }
    const due = [...appended].filter(([stream, count]) => this.trims.appended(stream, count)).map(([stream]) => stream);
    for (const stream of due) this.queueTrim(pipeline, stream);
    const all = ((await pipeline.exec()) ?? []) as [Error | null, unknown][];
    this.afterTrims(due, all.slice(messages.length));
    const results = all.slice(0, messages.length);
    const errors = results.map(([error]) => error).filter((error): error is Error => error !== null);
    if (errors.length === 0) return results.map(([, id]) => id as string);
    const outage = errors.find(isRedisConnectionError);
    if (outage) throw outage;
    const outcome: PublishResult[] = results.map(([error, id], i) =>
      error ? { ok: false, error: this.options.translate(`publish to stream "${messages[i]!.stream}"`, error) } : { ok: true, id: id as string },
    );
    throw new BrokerBatchError(this.options.brokerName, outcome);
  }

  /** Trims `stream` now (see `RedisBroker.trimStream`). */
  async trim(stream: string): Promise<TrimOutcome> {
    const pipeline = this.options.client().pipeline();
    this.queueTrim(pipeline, stream);
    const [reply] = repliesOrThrow((await pipeline.exec()) as PipelineResults, isRedisConnectionError);
    return this.reportTrim(stream, parseTrimReply(reply));
  }

  /** The hash counting, per group, the entries of `stream` lost to the hard limit. */
  lostKey(stream: string): string {
    return `${this.options.key(stream)}:lost`;
  }

  private queueTrim(pipeline: ReturnType<Redis['pipeline']>, stream: string): void {
    queueTrim(pipeline, this.options.key(stream), this.lostKey(stream), this.options.maxlen, this.options.maxlenHard);
  }

  private afterTrims(streams: readonly string[], results: readonly (readonly [Error | null, unknown] | undefined)[]): void {
    streams.forEach((stream, i) => {
      const [error, reply] = results[i] ?? [new Error('no reply'), null];
      if (error) this.options.log.warn('could not trim stream; it is retried with later publishes', { stream, error: this.options.redact(error.message) });
      else this.reportTrim(stream, parseTrimReply(reply));
    });
  }

  private reportTrim(stream: string, outcome: TrimOutcome): TrimOutcome {
    for (const { group, entries } of outcome.lost) {
      this.options.log.error('stream passed its hard length limit: entries the consumer group had not consumed were trimmed and are lost to it', {
        stream,
        group,
        lostEntries: entries,
        maxlenHard: this.options.maxlenHard,
        length: outcome.length,
      });
    }
    return outcome;
  }
}
