/**
 * Dead letters of a protean stream live in their own JetStream stream (`<stream>_dlq`), one
 * message per letter whose body is JSON: the original payload as text (byte for byte what was
 * published, never encoded again), or `rawFields` for a payload that was not an envelope, plus
 * why, where, when and after how many deliveries. The letter's id is its sequence in the DLQ.
 * A letter that would outgrow `max_payload` keeps a truncated copy instead (nats-letter-size.ts).
 */
import type { DeadLetter, MessageEnvelope } from '@protean-ts/core';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { fitLetter } from './nats-letter-size.js';
import type { NatsStreamNames } from './nats-names.js';

export interface DeadLetterBody {
  originalId: string;
  stream: string;
  group: string;
  error: string;
  failedAt: string;
  deliveryCount: number;
  /** The payload as published; null when it was not an envelope (then `rawFields`). */
  payload: string | null;
  rawFields?: string[];
}

const decoder = new TextDecoder();

export class NatsDeadLetters {
  constructor(
    private readonly js: () => JetStreamClient,
    private readonly jsm: () => JetStreamManager,
    private readonly ensureStream: (name: string, subject: string) => Promise<void>,
    private readonly requestTimeoutMs: number,
    /** The server's `max_payload`: a letter that would outgrow it keeps a truncated copy (see fitLetter). */
    private readonly maxPayloadBytes: () => number,
  ) {}

  async write(names: NatsStreamNames, body: DeadLetterBody): Promise<void> {
    await this.ensureStream(names.dlqStream, names.dlqSubject);
    // The id makes a retried write (the ack after it failed, the message came back) one letter.
    const msgID = `dlq:${body.group}:${body.originalId}:${body.deliveryCount}`;
    await this.js().publish(names.dlqSubject, fitLetter(body, this.maxPayloadBytes()), { msgID, timeout: this.requestTimeoutMs });
  }

  async list(stream: string, names: NatsStreamNames, count: number): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    for await (const { seq, body } of this.scan(names)) {
      letters.push(toDeadLetter(stream, seq, body));
      if (letters.length >= count) break;
    }
    return letters;
  }

  /** Publishes letters back to their stream, then deletes them; a letter another replay deleted first is not counted. */
  async replay(names: NatsStreamNames, ids: readonly string[] | undefined): Promise<number> {
    const wanted = ids ? new Set(ids) : null;
    const chosen: Array<{ seq: number; body: DeadLetterBody }> = [];
    for await (const letter of this.scan(names)) {
      if (!wanted || wanted.has(String(letter.seq))) chosen.push(letter);
    }
    let replayed = 0;
    for (const { seq, body } of chosen) {
      if (body.payload === null) continue;
      // Published before the delete, under an id of its own, so a crash in between or a second
      // replay at the same time publishes it once (within the duplicate window).
      await this.js().publish(names.subject, body.payload, { msgID: `replay:${names.dlqStream}:${seq}`, timeout: this.requestTimeoutMs });
      if (
        await this.jsm()
          .streams.deleteMessage(names.dlqStream, seq, false)
          .catch(() => false)
      )
        replayed += 1;
    }
    return replayed;
  }

  async purge(names: NatsStreamNames): Promise<number> {
    try {
      const result = await this.jsm().streams.purge(names.dlqStream);
      return result.purged;
    } catch (err) {
      if (isStreamNotFound(err)) return 0;
      throw err;
    }
  }

  private async *scan(names: NatsStreamNames): AsyncGenerator<{ seq: number; body: DeadLetterBody }> {
    let state;
    try {
      state = (await this.jsm().streams.info(names.dlqStream)).state;
    } catch (err) {
      if (isStreamNotFound(err)) return;
      throw err;
    }
    if (state.messages === 0) return;
    for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
      const stored = await this.jsm()
        .streams.getMessage(names.dlqStream, { seq })
        .catch((err: unknown) => {
          if (isMessageMissing(err)) return null;
          throw err;
        });
      if (!stored) continue;
      yield { seq, body: JSON.parse(decoder.decode(stored.data)) as DeadLetterBody };
    }
  }
}

function toDeadLetter(stream: string, seq: number, body: DeadLetterBody): DeadLetter {
  const letter: DeadLetter = {
    id: String(seq),
    originalId: body.originalId,
    stream: body.stream ?? stream,
    group: body.group,
    envelope: body.payload === null ? null : (JSON.parse(body.payload) as MessageEnvelope),
    error: body.error,
    failedAt: body.failedAt,
    deliveryCount: body.deliveryCount,
  };
  if (body.rawFields) letter.rawFields = body.rawFields;
  return letter;
}

export function isStreamNotFound(err: unknown): boolean {
  return err instanceof Error && (err.name === 'StreamNotFoundError' || /stream not found/i.test(err.message));
}

export function isConsumerNotFound(err: unknown): boolean {
  return err instanceof Error && (err.name === 'ConsumerNotFoundError' || /consumer not found/i.test(err.message));
}

function isMessageMissing(err: unknown): boolean {
  return err instanceof Error && /no message found|message not found/i.test(err.message);
}
