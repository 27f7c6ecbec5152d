/**
 * The in-process broker (`provider = "inline"`): streams, consumer groups, pending lists,
 * blocking reads, reclaim and dead letters with Redis Streams semantics, inside one process.
 * For tests, development and single-process deployments; nothing survives a restart.
 */
import type { BrokerSettings } from '../../config/config-types.js';
import { BaseBroker } from '../../ports/base-broker.js';
import { BrokerSettingsReader } from '../../config/broker-settings-reader.js';
import { BrokerCapability, type DeadLetter, type GroupStatus, type OutgoingMessage, type ReadOptions, type ReceivedMessage } from '../../ports/broker.js';
import { InlineDeadLetters } from './inline-dead-letters.js';
import type { InlineGroup, PendingEntry } from './inline-group.js';
import { InlineLiveness } from './inline-liveness.js';
import { InlineStream } from './inline-stream.js';

/** Entries kept per stream before the oldest are dropped; `maxlen = 0` keeps all. */
export const INLINE_DEFAULT_MAXLEN = 100_000;
/** The largest `maxlen` accepted (the bound declared in INLINE_BROKER_SETTINGS). */
const INLINE_MAXLEN_LIMIT = 1_000_000_000;

export class InlineBroker extends BaseBroker {
  readonly provider = 'inline';
  readonly capabilities =
    BrokerCapability.PUBLISH |
    BrokerCapability.CONSUMER_GROUPS |
    BrokerCapability.ACK_NACK |
    BrokerCapability.BLOCKING_READ |
    BrokerCapability.DEAD_LETTER_QUEUE |
    BrokerCapability.RECLAIM_PENDING |
    BrokerCapability.LIVENESS;

  readonly maxlen: number;
  private readonly streams = new Map<string, InlineStream>();
  private readonly deadLetters = new Map<string, InlineDeadLetters>();
  private readonly liveness = new InlineLiveness();

  constructor(name: string, settings: BrokerSettings = { provider: 'inline' }) {
    super(name, settings);
    const reader = new BrokerSettingsReader(name, settings);
    reader.onlyKeys(['maxlen']);
    this.maxlen = reader.integer('maxlen', INLINE_DEFAULT_MAXLEN, 0, INLINE_MAXLEN_LIMIT);
  }

  protected async doConnect(): Promise<void> {}

  protected async doPublish(message: OutgoingMessage): Promise<string> {
    return this.stream(message.stream).append(JSON.stringify(message.envelope));
  }

  protected override async doPublishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    // Serialise everything first, so a bad envelope publishes nothing rather than half a batch.
    const bodies = messages.map((m) => JSON.stringify(m.envelope));
    return messages.map((m, i) => this.stream(m.stream).append(bodies[i]!));
  }

  protected override async doEnsureGroup(stream: string, group: string): Promise<void> {
    this.stream(stream).group(group);
  }

  protected override async doRead(stream: string, group: string, consumer: string, options: ReadOptions): Promise<ReceivedMessage[]> {
    const target = this.stream(stream);
    const state = target.group(group);
    const deadline = Date.now() + options.blockMs;
    for (;;) {
      // Each wake-up counts as the consumer asking again, as with a blocked XREADGROUP.
      state.seen(consumer);
      const delivered = this.deliver(target, state, consumer, options.count);
      const left = deadline - Date.now();
      if (delivered.length > 0 || left <= 0 || this.state === 'closed') return delivered;
      await target.waitForAppend(left);
    }
  }

  protected override async doAck(stream: string, group: string, ids: readonly string[]): Promise<number> {
    const state = this.streams.get(stream)?.groups.get(group);
    if (!state) return 0;
    let acked = 0;
    for (const id of ids) if (state.pending.delete(id)) acked += 1;
    return acked;
  }

  protected override async doNack(stream: string, group: string, id: string): Promise<void> {
    const entry = this.streams.get(stream)?.groups.get(group)?.pending.get(id);
    if (entry) entry.deliveredAt = -Infinity;
  }

  protected override async doTouchPending(stream: string, group: string, consumer: string, ids: readonly string[]): Promise<number> {
    const state = this.streams.get(stream)?.groups.get(group);
    let touched = 0;
    for (const id of ids) {
      const entry = state?.pending.get(id);
      if (entry?.consumer !== consumer) continue;
      entry.deliveredAt = Date.now();
      touched += 1;
    }
    return touched;
  }

  protected override async doReclaim(stream: string, group: string, consumer: string, minIdleMs: number, count: number): Promise<ReceivedMessage[]> {
    const target = this.streams.get(stream);
    const state = target?.groups.get(group);
    if (!target || !state) return [];
    const now = Date.now();
    state.seen(consumer, now);
    return this.claim(target, state, consumer, count, now, (entry) => now - entry.deliveredAt >= minIdleMs);
  }

  protected override async doReportAlive(consumer: string, ttlMs: number): Promise<void> {
    this.liveness.report(consumer, ttlMs);
  }

  protected override async doReclaimFromDeadConsumers(
    stream: string,
    group: string,
    consumer: string,
    count: number,
    minIdleMs: number,
  ): Promise<ReceivedMessage[]> {
    const target = this.streams.get(stream);
    const state = target?.groups.get(group);
    if (!target || !state) return [];
    const now = Date.now();
    const dead = new Set<string>();
    for (const [name, seenAt] of state.consumers) {
      if (name !== consumer && now - seenAt >= minIdleMs && this.liveness.isDead(name, now)) dead.add(name);
    }
    if (dead.size === 0) return [];
    state.seen(consumer, now);
    return this.claim(target, state, consumer, count, now, (entry) => dead.has(entry.consumer));
  }

  /** Hands up to `count` pending entries that `take` accepts to `consumer`, oldest first, counting the delivery. */
  private claim(
    target: InlineStream,
    state: InlineGroup,
    consumer: string,
    count: number,
    now: number,
    take: (entry: PendingEntry) => boolean,
  ): ReceivedMessage[] {
    const claimed: ReceivedMessage[] = [];
    for (const [id, entry] of state.pending) {
      if (claimed.length >= count) break;
      if (!take(entry)) continue;
      const stored = target.at(entry.position);
      if (!stored) {
        // Trimmed while pending: nothing left to deliver (Redis 7's XAUTOCLAIM drops these too).
        state.pending.delete(id);
        continue;
      }
      entry.consumer = consumer;
      entry.deliveredAt = now;
      entry.deliveryCount += 1;
      claimed.push({ id, stream: target.name, envelope: JSON.parse(stored.body), deliveryCount: entry.deliveryCount });
    }
    return claimed;
  }

  protected override async doDeadLetter(stream: string, group: string, message: ReceivedMessage, error: string): Promise<void> {
    // One synchronous step: the message is never acked without its dead letter, nor the reverse.
    const pending = this.streams.get(stream)?.groups.get(group)?.pending;
    const deliveryCount = pending?.get(message.id)?.deliveryCount ?? message.deliveryCount;
    this.deadLetterStream(stream).add({
      originalId: message.id,
      stream,
      group,
      body: JSON.stringify(message.envelope),
      error,
      failedAt: new Date().toISOString(),
      deliveryCount,
    });
    pending?.delete(message.id);
  }

  protected override async doListDeadLetters(stream: string, count: number): Promise<DeadLetter[]> {
    return this.deadLetters.get(stream)?.list(count) ?? [];
  }

  protected override async doReplayDeadLetters(stream: string, ids: readonly string[] | undefined): Promise<number> {
    const letters = this.deadLetters.get(stream)?.take(ids) ?? [];
    const target = this.stream(stream);
    for (const letter of letters) target.append(letter.body);
    return letters.length;
  }

  protected override async doPurgeDeadLetters(stream: string): Promise<number> {
    return this.deadLetters.get(stream)?.clear() ?? 0;
  }

  protected override async doRemoveIdleConsumers(stream: string, group: string, idleMs: number): Promise<string[]> {
    return this.streams.get(stream)?.groups.get(group)?.removeIdleConsumers(idleMs) ?? [];
  }

  protected override async doGroupStatus(stream: string, group: string): Promise<GroupStatus> {
    const target = this.streams.get(stream);
    const state = target?.groups.get(group);
    if (!target || !state) return { pending: 0, lag: 0, exists: false };
    // Entries trimmed before the group reached them can no longer be delivered: not lag.
    target.clampCursor(state);
    return { pending: state.pending.size, lag: target.endPosition - state.cursor, exists: true };
  }

  protected async doPing(): Promise<boolean> {
    return true;
  }

  protected async doInfo(): Promise<Record<string, unknown>> {
    const streams: Record<string, unknown> = {};
    for (const [name, stream] of this.streams) {
      const groups: Record<string, unknown> = {};
      for (const [groupName, group] of stream.groups) {
        stream.clampCursor(group);
        groups[groupName] = { pending: group.pending.size, lag: stream.endPosition - group.cursor };
      }
      streams[name] = { length: stream.length, groups, deadLetters: this.deadLetters.get(name)?.length ?? 0 };
    }
    return { maxlen: this.maxlen, streams };
  }

  protected async doClose(): Promise<void> {
    for (const stream of this.streams.values()) stream.wake();
  }

  private stream(name: string): InlineStream {
    let stream = this.streams.get(name);
    if (!stream) {
      stream = new InlineStream(name, this.maxlen);
      this.streams.set(name, stream);
    }
    return stream;
  }

  private deadLetterStream(stream: string): InlineDeadLetters {
    let letters = this.deadLetters.get(stream);
    if (!letters) {
      letters = new InlineDeadLetters();
      this.deadLetters.set(stream, letters);
    }
    return letters;
  }

  /** Hands the group's next entries to `consumer` and records them as pending. */
  private deliver(stream: InlineStream, group: InlineGroup, consumer: string, count: number): ReceivedMessage[] {
    stream.clampCursor(group);
    const now = Date.now();
    const delivered: ReceivedMessage[] = [];
    while (delivered.length < count && group.cursor < stream.endPosition) {
      const entry = stream.at(group.cursor)!;
      group.pending.set(entry.id, { position: group.cursor, consumer, deliveredAt: now, deliveryCount: 1 });
      group.cursor += 1;
      delivered.push({ id: entry.id, stream: stream.name, envelope: JSON.parse(entry.body), deliveryCount: 1 });
    }
    return delivered;
  }
}
