/**
 * The read loop every subscription runs against the Broker port: join the consumer group, take
 * over messages a dead consumer left pending (then remove stopped consumers from the group),
 * read in blocking batches, hand each message to the subscription's handler, ack on success,
 * retry after `retry_delay_seconds` up to `max_retries`, then dead-letter. Loop errors (an
 * outage) back off and never end the loop.
 */
import { BrokerClosedError, type Broker, type Logger, type ReceivedMessage, type StreamSubscriptionConfig } from '@protean-ts/core';
import { abortableSleep, backoffDelay } from './abortable-sleep.js';
import type { Subscription, SubscriptionState, SubscriptionStatus } from './subscription-status.js';

/** What a handler did with a message: handled it, or saw it is not for it (acked, not run). */
export type HandleOutcome = 'handled' | 'skipped';

export interface ConsumerLoopOptions {
  name: string;
  kind: 'stream' | 'broker';
  broker: Broker;
  stream: string;
  group: string;
  /** This process's consumer name within the group. */
  consumer: string;
  handle: (message: ReceivedMessage) => Promise<HandleOutcome>;
  settings: StreamSubscriptionConfig;
  /** Messages per read. */
  batchSize: number;
  /** Pause after an empty read when the read could not block (`server.tick_interval`). */
  tickIntervalMs: number;
  /** A message pending this long without an ack belongs to a dead consumer and is taken over. */
  reclaimIdleMs: number;
  /** How often to look for such messages. */
  reclaimIntervalMs: number;
  /** Errors retrying cannot fix (a malformed envelope, an unknown type): dead-lettered at once. */
  isPermanent?: (error: unknown) => boolean;
  logger: Logger;
}

export class ConsumerLoop implements Subscription {
  readonly name: string;
  private readonly abort = new AbortController();
  private readonly log: Logger;
  private state: SubscriptionState = 'idle';
  private lastError: string | null = null;
  private loop: Promise<void> | null = null;
  private inFlight: Promise<void> | null = null;
  private readonly counters = { handled: 0, retried: 0, deadLettered: 0, leftPending: 0, skipped: 0 };

  constructor(private readonly options: ConsumerLoopOptions) {
    this.name = options.name;
    this.log = options.logger.child({ subscription: options.name, stream: options.stream, group: options.group });
  }

  start(): void {
    if (this.loop) return;
    this.state = 'starting';
    this.loop = this.run().catch((err: unknown) => {
      // run() catches everything itself; reaching this is a bug, and it must not take the engine down.
      this.log.error('subscription loop ended unexpectedly', { error: err });
      this.state = 'stopped';
    });
  }

  async stop(): Promise<void> {
    if (this.state !== 'stopped') this.state = 'stopping';
    this.abort.abort();
    await this.inFlight;
  }

  async finished(): Promise<void> {
    await this.loop;
  }

  status(): SubscriptionStatus {
    const { name, kind, stream, group, broker } = this.options;
    return { name, kind, stream, group, broker: broker.name, state: this.state, lastError: this.lastError, ...this.counters };
  }

  /** Whether an empty read already waited `blocking_timeout_ms`; if not, the loop pauses itself. */
  private get readsBlock(): boolean {
    return this.options.settings.blocking_timeout_ms > 0 && this.options.broker.has('BLOCKING_READ');
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    const { broker, stream, group, consumer, batchSize, settings } = this.options;
    let joined = false;
    let failures = 0;
    let nextReclaimAt = 0;
    // Stopped consumers are looked for once the start-up reclaim is done, and again whenever a
    // reclaim took messages over (a consumer just stopped, and now has nothing pending).
    let lookForStaleConsumers = true;
    while (!this.stopping) {
      try {
        if (!joined) {
          await broker.ensureGroup(stream, group);
          joined = true;
          if (!this.stopping) this.state = 'running';
          this.log.info('subscription started', { consumer, broker: broker.name });
        }
        let batch: ReceivedMessage[] = [];
        let reclaimed = false;
        if (Date.now() >= nextReclaimAt) {
          // Scheduled before the call: a reclaim that keeps failing must not starve the reads.
          nextReclaimAt = Date.now() + this.options.reclaimIntervalMs;
          batch = await this.reclaim();
          reclaimed = batch.length > 0;
          // A full batch means more may be waiting: look again right away.
          if (batch.length === batchSize) nextReclaimAt = 0;
          if (reclaimed) {
            this.log.info('took over messages left pending by a stopped consumer', { count: batch.length });
            lookForStaleConsumers = true;
          }
          if (lookForStaleConsumers && batch.length < batchSize) {
            lookForStaleConsumers = false;
            await this.removeStaleConsumers();
          }
        }
        if (!reclaimed) batch = await broker.read(stream, group, consumer, { count: batchSize, blockMs: settings.blocking_timeout_ms });
        if (failures > 0) this.log.info('subscription recovered', { afterFailures: failures });
        failures = 0;
        this.lastError = null;
        if (!this.stopping) this.state = 'running';
        await this.processBatch(batch, reclaimed);
        if (batch.length === 0 && !this.readsBlock) await abortableSleep(Math.max(10, this.options.tickIntervalMs), this.abort.signal);
      } catch (err) {
        if (this.stopping) break;
        if (err instanceof BrokerClosedError) {
          // Only the Engine closes brokers, after stopping us; anything else is a bug to surface.
          this.lastError = errorText(err, 500);
          this.log.error('the broker was closed under a running subscription; it stops', { error: err });
          break;
        }
        failures += 1;
        const delayMs = backoffDelay(failures);
        this.state = 'backing-off';
        this.lastError = errorText(err, 500);
        // The first failure and then every tenth, so a long outage does not flood the log.
        if (failures === 1 || failures % 10 === 0) this.log.warn('subscription failed; backing off', { error: err, failures, delayMs });
        await abortableSleep(delayMs, this.abort.signal);
      }
    }
    this.state = 'stopped';
    this.log.info('subscription stopped', { ...this.counters });
  }

  /** Pending messages of dead consumers; a failure is logged and the loop goes on reading new ones. */
  private async reclaim(): Promise<ReceivedMessage[]> {
    const { broker, stream, group, consumer, batchSize, reclaimIdleMs } = this.options;
    try {
      return await broker.reclaim(stream, group, consumer, reclaimIdleMs, batchSize);
    } catch (err) {
      this.log.warn('taking over pending messages failed; reading new ones meanwhile', { error: err });
      return [];
    }
  }

  /**
   * Restarted workers join under new consumer names; the old names would stay in the group
   * forever. Removes those silent for the reclaim idle time with nothing pending (the broker
   * never removes one with pending messages). Removing a live but quiet consumer is harmless:
   * it comes back with its next read. A failure is logged and the loop goes on.
   */
  private async removeStaleConsumers(): Promise<void> {
    const { broker, stream, group, reclaimIdleMs } = this.options;
    try {
      const removed = await broker.removeIdleConsumers(stream, group, reclaimIdleMs);
      if (removed.length) this.log.info('removed stopped consumers from the group', { consumers: removed, idleMs: reclaimIdleMs });
    } catch (err) {
      this.log.warn('removing stopped consumers from the group failed; they stay until the next start', { error: err });
    }
  }

  private async processBatch(batch: readonly ReceivedMessage[], reclaimed: boolean): Promise<void> {
    for (let i = 0; i < batch.length; i++) {
      if (this.stopping) {
        await this.giveBack(batch.slice(i));
        return;
      }
      const work = this.process(batch[i]!, reclaimed);
      this.inFlight = work;
      try {
        await work;
      } finally {
        this.inFlight = null;
      }
    }
  }

  /** One message through the handler with retries; never throws for a handler failure. */
  private async process(message: ReceivedMessage, reclaimed: boolean): Promise<void> {
    const { settings, broker, stream, group } = this.options;
    const ids = messageFields(message);
    const maxAttempts = settings.max_retries + 1;
    if (reclaimed && message.deliveryCount > maxAttempts) {
      // Each delivery already had its own retries; a message whose consumers keep dying is a poison pill.
      const reason = `delivered ${message.deliveryCount} times without an ack: the consumer handling it stopped each time`;
      return this.giveUp(message, reason, ids);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.options.handle(message);
        this.counters[outcome === 'handled' ? 'handled' : 'skipped'] += 1;
        await this.ackHandled(message, ids);
        return;
      } catch (err) {
        const permanent = this.options.isPermanent?.(err) ?? false;
        if (permanent || attempt >= maxAttempts) {
          const why = permanent ? 'cannot be handled' : `failed ${attempt} times`;
          this.log.error(`message ${why}`, { ...ids, attempt, error: err });
          return this.giveUp(message, errorText(err, 4000), ids);
        }
        this.counters.retried += 1;
        this.log.warn('handler failed; retrying', { ...ids, attempt, maxAttempts, retryInSeconds: settings.retry_delay_seconds, error: err });
        await abortableSleep(settings.retry_delay_seconds * 1000, this.abort.signal);
        if (this.stopping) {
          // Shutting down between attempts: hand it back so another consumer takes it at once.
          await broker.nack(stream, group, message.id).catch(() => undefined);
          return;
        }
      }
    }
  }

  private async ackHandled(message: ReceivedMessage, ids: Record<string, unknown>): Promise<void> {
    const { broker, stream, group } = this.options;
    try {
      await broker.ack(stream, group, [message.id]);
    } catch (err) {
      // The handler's work is committed; the message comes back after the reclaim idle time (at-least-once).
      this.log.warn('handled but the ack failed; the message will be delivered again', { ...ids, error: err });
    }
  }

  /** Dead-letters when enabled; otherwise, or when that fails, leaves the message pending (not acked). */
  private async giveUp(message: ReceivedMessage, error: string, ids: Record<string, unknown>): Promise<void> {
    const { broker, stream, group, settings } = this.options;
    if (!settings.enable_dlq) {
      this.counters.leftPending += 1;
      this.log.error('message left pending: dead-lettering is off; it is retried after the reclaim idle time', {
        ...ids,
        hint: 'set [server.stream_subscription] enable_dlq = true to move failing messages aside',
      });
      return;
    }
    try {
      await broker.deadLetter(stream, group, message, error);
      this.counters.deadLettered += 1;
      this.log.error('message moved to the dead-letter stream', { ...ids, deadLetterStream: `${stream}:dlq` });
    } catch (err) {
      this.counters.leftPending += 1;
      this.log.error('dead-lettering failed; the message stays pending and is not acked', { ...ids, error: err });
    }
  }

  private async giveBack(messages: readonly ReceivedMessage[]): Promise<void> {
    const { broker, stream, group } = this.options;
    for (const message of messages) await broker.nack(stream, group, message.id).catch(() => undefined);
    if (messages.length) this.log.info('stopping: handed unprocessed messages back to the group', { count: messages.length });
  }
}

function messageFields(message: ReceivedMessage): Record<string, unknown> {
  const headers = message.envelope?.metadata?.headers;
  return { brokerMessageId: message.id, messageId: headers?.id, messageType: headers?.type, deliveryCount: message.deliveryCount };
}

/** The error as stored with a dead letter: name, message and the top of the stack. */
export function errorText(err: unknown, limit: number): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
