/**
 * One message of a subscription, start to end: run the handler (through the inbox, which decides
 * whether it is the key's next, a duplicate or early), retry what may succeed later, dead-letter
 * what cannot, and ack. A message that must wait for its predecessor tells the KeyScheduler when
 * to try again; one that waited longer than `gap_timeout_seconds` is let through with an ERROR.
 */
import {
  checkPositionPassed,
  isPermanentError,
  passedRowOf,
  storableText,
  type HandleOutcome,
  type Clock,
  type InboxStore,
  type Logger,
  type ReceivedMessage,
  type StreamSubscriptionConfig,
} from '@protean-ts/core';
import { ProcessDuration } from '../metrics/process-duration.js';
import { sleepOnClock } from './abortable-sleep.js';
import { MessageHeld } from './flow/message-held.js';
import type { HeadResult, Queued } from './key-scheduler.js';
import type { PassBatcher } from './pass-batcher.js';
import type { SubscriptionCounters } from './subscription-status.js';

export interface HandleRequest {
  /** Take the message although its predecessors never came (the gap timed out). */
  jumpGap: boolean;
  /** Aborts when the subscription stops: a handler waiting (for a projection rebuild) gives up. */
  signal?: AbortSignal;
  /** 1 for the first try of this delivery; retries after a failure run alone, never in a batch. */
  attempt: number;
}

/** Where a subscription moves the messages it gives up on (a broker's dead-letter stream, the event store's dead letters). */
export interface DeadLetterTarget {
  move(message: ReceivedMessage, error: string): Promise<void>;
  /** Named in logs: where to look for them. */
  readonly where: string;
  /** The log line of a move (documented in docs/server.md). */
  readonly movedMessage: string;
}

/** Marks a message done with; the subscription settles it with its source (a broker ack, a cursor). */
export interface Acknowledger {
  ack(id: string): void;
}

export interface MessageRunnerOptions {
  deadLetters: DeadLetterTarget;
  stream: string;
  group: string;
  settings: StreamSubscriptionConfig;
  /** Runs the handler; `skipped` when this subscription does not handle the message's type. */
  handle: (message: ReceivedMessage, request: HandleRequest) => Promise<HandleOutcome>;
  /** Moves the key past a message without running the handler (a type it does not handle, timed out). */
  jumpOver: (message: ReceivedMessage) => Promise<HandleOutcome>;
  /** Errors no retry can fix (a malformed envelope, an unknown type): dead-lettered at once. */
  isPermanent?: (error: unknown) => boolean;
  /** Called with the last error when a message's handling is given up (before it is dead-lettered); its own failure is only logged. */
  onGivingUp?: (message: ReceivedMessage, error: unknown) => Promise<void>;
  /** The subscription's inbox, or null when `[inbox] enabled = false` (no order, no dedup). */
  inbox: { store: InboxStore; passes: PassBatcher } | null;
  acks: Acknowledger;
  counters: SubscriptionCounters;
  /** How the handler duration metric names this subscription: `messaging.system` (the broker's provider, or `protean_event_store`) and its name. */
  metricLabels: { system: string; subscription: string };
  signal: AbortSignal;
  /** `domain.clock`: a failed message is retried `retry_delay_seconds` after the failure by it (and at the latest that long in real time). */
  clock: Clock;
  log: Logger;
}

/** First pause before looking again for a missing predecessor; doubles up to the cap. */
const FIRST_WAIT_MS = 5;
const MAX_WAIT_MS = 250;
/** Deliveries without an ack, per allowed attempt, before a taken-over message counts as a poison pill. */
const POISON_DELIVERIES = 2;

interface WaitState {
  since: number;
  waits: number;
}

export class MessageRunner {
  private readonly waiting = new Map<string, WaitState>();
  private readonly duration: ProcessDuration;

  constructor(private readonly options: MessageRunnerOptions) {
    this.duration = new ProcessDuration({ system: options.metricLabels.system, destination: options.stream, group: options.metricLabels.subscription });
  }

  /** Never throws: every outcome is done (acked, dead-lettered or left pending) or a wait. */
  async run(item: Queued, reclaimed: boolean): Promise<HeadResult> {
    try {
      const result = await this.attempt(item, reclaimed);
      if (result.done) this.waiting.delete(item.message.id);
      return result;
    } catch (error) {
      // A failure outside the handler (the inbox's database is down): try again later.
      this.options.log.warn('could not settle a message; trying again', { ...ids(item.message), error });
      return { done: false, afterMs: 1000 };
    }
  }

  private async attempt(item: Queued, reclaimed: boolean): Promise<HeadResult> {
    const { message } = item;
    const { settings, counters } = this.options;
    const maxAttempts = settings.max_retries + 1;
    if (reclaimed && message.deliveryCount > this.poisonDeliveries) {
      // Each delivery already had its own retries; a message whose consumers keep dying is a poison
      // pill. Twice the attempts: a takeover from a live but slow consumer counts a delivery too.
      return this.giveUp(item, `delivered ${message.deliveryCount} times without an ack: the consumer handling it stopped each time`);
    }
    const marker = passedRowOf(message.envelope);
    if (marker) return this.passAbandonedIfTrusted(item, marker);
    const jumpGap = this.gapTimedOut(item);
    for (let attempt = 1; ; attempt++) {
      let outcome: HandleOutcome;
      const startedAt = performance.now();
      try {
        outcome = await this.options.handle(message, { jumpGap, signal: this.options.signal, attempt });
        // Only attempts that ran the handler: a skipped type, a duplicate or an early message did not.
        if (outcome === 'handled' || outcome === 'handled-late') this.duration.record(startedAt);
        if (outcome === 'skipped' && item.sequence > 0 && this.options.inbox) outcome = await this.passSkipped(item, jumpGap);
      } catch (error) {
        // Flow control held it (an open circuit, a stop while waiting for a limit): not a failure, no attempt used.
        if (error instanceof MessageHeld) return { done: false, afterMs: error.afterMs };
        this.duration.record(startedAt, error);
        const permanent = (this.options.isPermanent?.(error) ?? false) || isPermanentError(error);
        if (permanent || attempt >= maxAttempts) {
          const why = permanent ? 'cannot be handled (an error retrying cannot fix)' : `failed ${attempt} times`;
          this.options.log.error(`message ${why}`, { ...ids(message), attempt, error });
          await this.options
            .onGivingUp?.(message, error)
            .catch((err: unknown) => this.options.log.warn('recording the failure of a given-up message failed', { ...ids(message), error: err }));
          return this.giveUp(item, errorText(error, 4000));
        }
        counters.retried += 1;
        this.options.log.warn('handler failed; retrying', { ...ids(message), attempt, maxAttempts, retryInSeconds: settings.retry_delay_seconds, error });
        await sleepOnClock(settings.retry_delay_seconds * 1000, this.options.clock, this.options.signal);
        if (this.options.signal.aborted) return { done: false, afterMs: 0 };
        continue;
      }
      return this.settle(item, outcome, jumpGap);
    }
  }

  private async settle(item: Queued, outcome: HandleOutcome, jumpGap: boolean): Promise<HeadResult> {
    const { message } = item;
    const { counters, log } = this.options;
    switch (outcome) {
      case 'early':
        return this.waitForPredecessor(item);
      case 'dead-lettered-before':
        // Dead-lettered earlier, but the move to the dead letters did not finish: finish it.
        return this.moveToDeadLetters(item, 'dead-lettered before; the earlier move did not complete');
      case 'duplicate':
        counters.duplicates += 1;
        log.debug('duplicate delivery skipped: the inbox has it as handled', ids(message));
        break;
      case 'handled-late':
        counters.handled += 1;
        counters.late += 1;
        log.warn('handled a message whose position had been passed (out of order)', ids(message));
        break;
      case 'skipped':
        counters.skipped += 1;
        break;
      case 'handled':
        counters.handled += 1;
        break;
    }
    if (jumpGap && outcome !== 'duplicate') this.reportGapPassed(item);
    this.options.acks.ack(message.id);
    return { done: true };
  }

  /** A type this handler ignores still takes its turn in the key's order. */
  private async passSkipped(item: Queued, jumpGap: boolean): Promise<HandleOutcome> {
    const { message } = item;
    if (jumpGap) {
      const outcome = await this.options.jumpOver(message);
      return outcome === 'handled' ? 'skipped' : outcome;
    }
    const moved = await this.options.inbox!.passes.pass({ key: item.key, sequence: item.sequence });
    if (moved) return 'skipped';
    const checkpoint = await this.options.inbox!.store.checkpoint(this.options.group, item.key);
    return checkpoint !== null && checkpoint >= item.sequence ? 'duplicate' : 'early';
  }

  /** A marker moves a key past a message: only a signed, intact one is followed; another is dead-lettered. */
  private async passAbandonedIfTrusted(item: Queued, marker: { messageId: string; reason: string }): Promise<HeadResult> {
    try {
      checkPositionPassed(item.message.envelope, { requireChecksum: !this.options.settings.accept_unsigned_envelopes });
    } catch (error) {
      this.options.log.error('position marker refused: it cannot be trusted to move its key', { ...ids(item.message), error });
      return this.giveUp(item, errorText(error, 4000));
    }
    return this.passAbandoned(item, marker);
  }

  /** The outbox abandoned the message at this position: the key moves past it, recorded. */
  private async passAbandoned(item: Queued, marker: { messageId: string; reason: string }): Promise<HeadResult> {
    const { inbox, log, counters } = this.options;
    if (inbox && item.sequence > 0) {
      const pass = { key: item.key, sequence: item.sequence, reason: marker.reason, messageId: marker.messageId, brokerMessageId: item.message.id };
      if (!(await inbox.store.pass(this.options.group, [pass]))[0]) {
        const checkpoint = await inbox.store.checkpoint(this.options.group, item.key);
        if (checkpoint === null || checkpoint < item.sequence) return this.waitForPredecessor(item);
      } else {
        counters.passedAbandoned += 1;
        log.error('the key moves past a message the outbox abandoned; its successors are handled', {
          key: item.key,
          sequence: item.sequence,
          abandonedMessageId: marker.messageId,
          reason: marker.reason,
        });
      }
    }
    this.options.acks.ack(item.message.id);
    return { done: true };
  }

  private waitForPredecessor(item: Queued): HeadResult {
    const state = this.waiting.get(item.message.id) ?? { since: Date.now(), waits: 0 };
    state.waits += 1;
    this.waiting.set(item.message.id, state);
    this.options.counters.waits += 1;
    const ceiling = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** (state.waits - 1));
    const untilTimeout = state.since + this.gapTimeoutMs - Date.now();
    return { done: false, afterMs: Math.max(0, Math.min(untilTimeout, ceiling / 2 + (Math.random() * ceiling) / 2)) };
  }

  /** Deliveries without an ack after which a message is given up (dead-lettered, or dropped when that fails). */
  private get poisonDeliveries(): number {
    return POISON_DELIVERIES * (this.options.settings.max_retries + 1);
  }

  private get gapTimeoutMs(): number {
    return this.options.settings.gap_timeout_seconds * 1000;
  }

  private gapTimedOut(item: Queued): boolean {
    const state = this.waiting.get(item.message.id);
    return state !== undefined && Date.now() - state.since >= this.gapTimeoutMs;
  }

  private reportGapPassed(item: Queued): void {
    const state = this.waiting.get(item.message.id);
    this.options.counters.gapsPassed += 1;
    this.options.log.error('passed a gap: the predecessors of this message did not arrive within gap_timeout_seconds; handled it without them', {
      ...ids(item.message),
      key: item.key,
      sequence: item.sequence,
      waitedMs: state ? Date.now() - state.since : null,
      hint: 'a predecessor that still arrives is handled then, out of order; raise [server.stream_subscription] gap_timeout_seconds if handlers are slower than that',
    });
  }

  /**
   * Dead-letters in the key's order: the key moves past the message (recorded as dead-lettered,
   * so a replay is handled) and then the broker moves it aside. When dead-lettering is off, or
   * the broker fails, the message stays pending and the key waits for it.
   */
  private async giveUp(item: Queued, error: string): Promise<HeadResult> {
    const { message } = item;
    const { settings, counters, log, inbox } = this.options;
    if (!settings.enable_dlq) {
      counters.leftPending += 1;
      log.error('message left pending: dead-lettering is off; it is retried after the reclaim idle time', {
        ...ids(message),
        hint: 'set [server.stream_subscription] enable_dlq = true to move failing messages aside',
      });
      return { done: true };
    }
    if (inbox && item.sequence > 0) {
      const pass = { key: item.key, sequence: item.sequence, reason: 'dead-lettered', messageId: headerId(message), brokerMessageId: message.id };
      if (!(await inbox.store.pass(this.options.group, [pass]))[0]) {
        const checkpoint = await inbox.store.checkpoint(this.options.group, item.key);
        if ((checkpoint === null || checkpoint < item.sequence) && !this.gapTimedOut(item)) return this.waitForPredecessor(item);
        if (checkpoint === null || checkpoint < item.sequence) {
          // Its predecessor never came: dead-letter it without moving the key; the successors pass
          // the same gap after their own timeout, and a replay is then handled late.
          return this.moveToDeadLetters(item, error);
        }
        // Handled by another delivery meanwhile: this one is a duplicate after all.
        counters.duplicates += 1;
        this.options.acks.ack(message.id);
        return { done: true };
      }
      log.error('the key moves past a dead-lettered message; its successors are handled', { ...ids(message), key: item.key, sequence: item.sequence });
    }
    return this.moveToDeadLetters(item, error);
  }

  private async moveToDeadLetters(item: Queued, error: string): Promise<HeadResult> {
    const { message } = item;
    const { deadLetters, counters, log } = this.options;
    try {
      await deadLetters.move(message, error);
      counters.deadLettered += 1;
      log.error(deadLetters.movedMessage, { ...ids(message), deadLetters: deadLetters.where });
    } catch (err) {
      if (message.deliveryCount > this.poisonDeliveries) return this.dropUndeliverable(item, error, err);
      counters.leftPending += 1;
      log.error('dead-lettering failed; the message stays pending and is not acked', { ...ids(message), error: err });
    }
    return { done: true };
  }

  /**
   * The last resort, so no message is reclaimed forever: it failed, and dead-lettering it failed
   * on every delivery up to the poison-pill bound. It is acked with an ERROR naming it; the entry
   * itself stays in the stream (readable by its id) until the stream is trimmed.
   */
  private dropUndeliverable(item: Queued, reason: string, deadLetterError: unknown): HeadResult {
    const { message } = item;
    const { stream, group, counters, log } = this.options;
    counters.dropped += 1;
    log.error('message dropped: it failed and could not be dead-lettered on any of its deliveries; acked so it is not reclaimed forever', {
      ...ids(message),
      stream,
      group,
      reason,
      deadLetterError,
      hint: `the entry stays in the stream until trimmed: read it by its id (${message.id}); fix what makes dead-lettering fail (see deadLetterError)`,
    });
    this.options.acks.ack(message.id);
    return { done: true };
  }
}

/** The message id as the inbox records it with a passed position (a hostile one must not make the record fail). */
function headerId(message: ReceivedMessage): string | undefined {
  const id = message.envelope?.metadata?.headers?.id;
  return typeof id === 'string' ? storableText(id, 255) : undefined;
}

export function ids(message: ReceivedMessage): Record<string, unknown> {
  const headers = message.envelope?.metadata?.headers;
  // Clipped: a hostile entry may carry megabytes there, and every log line of the message repeats them.
  const text = (value: unknown) => (typeof value === 'string' ? storableText(value, 255) : value);
  return { brokerMessageId: message.id, messageId: text(headers?.id), messageType: text(headers?.type), deliveryCount: message.deliveryCount };
}

/** The error as stored with a dead letter: name, message and the top of the stack. */
export function errorText(err: unknown, limit: number): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
