/**
 * The read loop every subscription runs against the Broker port: join the consumer group, take
 * over messages a dead consumer left pending (then remove stopped consumers from the group),
 * read ahead in blocking batches while up to `concurrency` partition keys are handled at once
 * (KeyScheduler, MessageRunner), and give back what was only read when it stops. Loop errors (an
 * outage) back off and never end the loop.
 */
import {
  BrokerClosedError,
  BrokerUnavailableError,
  positionOf,
  type Broker,
  type Clock,
  type HandleOutcome,
  type InboxStore,
  type Logger,
  type ReceivedMessage,
  type StreamSubscriptionConfig,
} from '@protean-ts/core';
import { abortableSleep, backoffDelay, sleepUntilRecovered } from './abortable-sleep.js';
import { AckBatcher } from './ack-batcher.js';
import type { FlowGate } from './flow/flow-gate.js';
import { KeyScheduler, type Queued } from './key-scheduler.js';
import { DEAD_CONSUMER_CHECK_MS, Liveness } from './liveness.js';
import { errorText, MessageRunner, type HandleRequest } from './message-runner.js';
import { PassBatcher } from './pass-batcher.js';
import { SubscriptionLifecycle } from './subscription-lifecycle.js';
import { TransactionBatcher } from './transaction-batcher.js';
import { BatchCommitError } from './transaction-batch.js';
import type { Subscription, SubscriptionStatus } from './subscription-status.js';

export { errorText } from './message-runner.js';

export interface ConsumerLoopOptions {
  name: string;
  kind: 'stream' | 'broker';
  broker: Broker;
  stream: string;
  group: string;
  /** This process's consumer name within the group. */
  consumer: string;
  handle: (message: ReceivedMessage, request: HandleRequest) => Promise<HandleOutcome>;
  /** Moves the key past a message of a type this subscription does not handle, over a timed-out gap. */
  jumpOver: (message: ReceivedMessage) => Promise<HandleOutcome>;
  settings: StreamSubscriptionConfig;
  /** The inbox for order and duplicates; null when `[inbox] enabled = false`. */
  inbox: InboxStore | null;
  /** Messages per read, and the read-ahead bound: at most this many (plus reclaims) held at once. */
  batchSize: number;
  /** Pause after an empty read when the read could not block (`server.tick_interval`). */
  tickIntervalMs: number;
  /** A message pending this long without an ack belongs to a dead consumer and is taken over. */
  reclaimIdleMs: number;
  /** How often to look for such messages. */
  reclaimIntervalMs: number;
  /** Errors retrying cannot fix (a malformed envelope, an unknown type): dead-lettered at once. */
  isPermanent?: (error: unknown) => boolean;
  /** Called with the last error when a message is given up (see MessageRunnerOptions). */
  onGivingUp?: (message: ReceivedMessage, error: unknown) => Promise<void>;
  /**
   * Handle messages of different keys that run at the same time in one transaction, a savepoint
   * each (`batch_size` > 1); absent or size 1: each message commits alone.
   */
  batching?: { size: number; maxWaitMs: number };
  /** Flow control of the subscription (circuit breaker, limits, debouncing); absent without a `[server.flow_control]` table. */
  flow?: FlowGate;
  /** `domain.clock`, which retry delays are due by (see MessageRunnerOptions). */
  clock: Clock;
  /**
   * Whether the handler runs for this message (a type it handles); absent: for every message.
   * Flow control governs handler runs only: another type neither waits for a slot or permit nor
   * supersedes the latest message of its key that the handler does take.
   */
  runsHandlerFor?: (message: ReceivedMessage) => boolean;
  logger: Logger;
}

export class ConsumerLoop extends SubscriptionLifecycle implements Subscription {
  readonly name: string;
  private readonly abort = new AbortController();
  protected readonly log: Logger;
  private lastError: string | null = null;
  private readonly scheduler: KeyScheduler;
  private readonly runner: MessageRunner;
  /** Broker ids of messages taken over from a dead consumer (poison-pill check). */
  private readonly reclaimedIds = new Set<string>();
  private readonly liveness: Liveness;
  private readonly acks: AckBatcher;

  constructor(private readonly options: ConsumerLoopOptions) {
    super();
    this.name = options.name;
    this.log = options.logger.child({ subscription: options.name, stream: options.stream, group: options.group });
    const { broker, stream, group, inbox } = options;
    this.acks = new AckBatcher(broker, stream, group, this.log);
    this.runner = new MessageRunner({
      deadLetters: {
        move: (message, error) => broker.deadLetter(stream, group, message, error),
        where: `${stream}:dlq`,
        movedMessage: 'message moved to the dead-letter stream',
      },
      stream,
      group,
      settings: options.settings,
      handle: options.flow ? options.flow.wrap(this.batchedHandle(), options.isPermanent, options.runsHandlerFor) : this.batchedHandle(),
      jumpOver: options.jumpOver,
      ...(options.isPermanent ? { isPermanent: options.isPermanent } : {}),
      ...(options.onGivingUp ? { onGivingUp: options.onGivingUp } : {}),
      inbox: inbox ? { store: inbox, passes: new PassBatcher(inbox, group) } : null,
      acks: this.acks,
      counters: this.counters,
      metricLabels: { system: broker.provider, subscription: options.name },
      signal: this.abort.signal,
      clock: options.clock,
      log: this.log,
    });
    this.liveness = new Liveness(broker, options.consumer, this.log);
    this.scheduler = new KeyScheduler(Math.max(1, options.settings.concurrency), async (item) => {
      const result = await this.runner.run(item, this.reclaimedIds.has(item.message.id));
      if (result.done) this.reclaimedIds.delete(item.message.id);
      return result;
    });
  }

  /** The handler as the runner calls it: first tries join a batch when batching is on; retries run alone. */
  private batchedHandle(): ConsumerLoopOptions['handle'] {
    const { handle, batching } = this.options;
    if (!batching || batching.size <= 1) return handle;
    const batcher = new TransactionBatcher(batching.size, batching.maxWaitMs, this.counters, this.log);
    return async (message, request) => {
      if (request.attempt !== 1) return handle(message, request);
      try {
        return await batcher.run(() => handle(message, request));
      } catch (error) {
        // The batch's commit failed, not this message's handler (a key another worker had moved,
        // say): nothing of it was kept, so it runs again alone at once, no attempt spent.
        if (error instanceof BatchCommitError) return handle(message, request);
        throw error;
      }
    };
  }

  status(): SubscriptionStatus {
    const { name, kind, stream, group, broker } = this.options;
    const flow = this.options.flow?.status();
    return {
      name,
      kind,
      stream,
      group,
      broker: broker.name,
      state: this.state,
      lastError: this.lastError,
      inFlight: this.scheduler.size,
      readAhead: { held: this.scheduler.size, bound: 2 * this.options.batchSize, paused: this.scheduler.size > Math.floor(this.options.batchSize / 2) },
      ...this.counters,
      ...(flow ? { flow } : {}),
    };
  }

  /**
   * Messages taken over from dead consumers come on top of the read-ahead (a key may be waiting
   * for one of them), up to twice `batchSize` held in all: the memory bound whatever the stream's depth.
   */
  private get takeOverRoom(): number {
    return Math.max(0, 2 * this.options.batchSize - this.scheduler.size);
  }

  /** Whether an empty read already waited `blocking_timeout_ms`; if not, the loop pauses itself. */
  private get readsBlock(): boolean {
    return this.options.settings.blocking_timeout_ms > 0 && this.options.broker.has('BLOCKING_READ');
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  protected async shutdown(): Promise<void> {
    if (this.state !== 'stopped') this.state = 'stopping';
    this.abort.abort();
    this.liveness.stop();
    const left = await this.scheduler.stop();
    await this.acks.drain();
    await this.giveBack(left);
    // What the adapter took in ahead of our reads goes back too (a partition moving to another worker).
    const { broker, stream, group } = this.options;
    await broker
      .releaseGroup(stream, group)
      .catch((error: unknown) =>
        this.log.warn('could not give back the deliveries taken in ahead of reads; the broker redelivers them when this process stops', { error }),
      );
  }

  protected async run(): Promise<void> {
    const { broker, stream, group, consumer, batchSize, settings } = this.options;
    let joined = false;
    let failures = 0;
    let nextReclaimAt = 0;
    let nextDeadCheckAt = 0;
    // Stopped consumers are looked for once the start-up reclaim is done, and again whenever a
    // reclaim took messages over (a consumer just stopped, and now has nothing pending).
    let lookForStaleConsumers = true;
    while (!this.stopping) {
      try {
        if (!joined) {
          await broker.ensureGroup(stream, group);
          joined = true;
          if (!this.stopping) this.state = 'running';
          this.liveness.start();
          this.log.info('subscription started', {
            consumer,
            broker: broker.name,
            concurrency: settings.concurrency,
            batchSize: this.options.batching?.size ?? 1,
            inbox: this.options.inbox !== null,
            liveness: this.liveness.supported,
          });
        }
        if (this.liveness.supported && Date.now() >= nextDeadCheckAt) {
          nextDeadCheckAt = Date.now() + DEAD_CONSUMER_CHECK_MS;
          const taken = await this.liveness.takeOverFromDead(stream, group, Math.min(batchSize, this.takeOverRoom));
          if (taken.length > 0) {
            this.log.info('took over messages of a consumer that stopped reporting alive', { count: taken.length });
            lookForStaleConsumers = true;
            nextDeadCheckAt = 0;
            for (const message of taken) this.enqueue(message, true);
          }
        }
        if (Date.now() >= nextReclaimAt) {
          // Scheduled before the call: a reclaim that keeps failing must not starve the reads.
          nextReclaimAt = Date.now() + this.options.reclaimIntervalMs;
          await this.keepHeldMessages();
          const taken = await this.reclaim();
          // A full batch means more may be waiting: look again right away.
          if (taken.length === batchSize) nextReclaimAt = 0;
          if (taken.length > 0) {
            this.log.info('took over messages left pending by a stopped consumer', { count: taken.length });
            lookForStaleConsumers = true;
            // Taken over whatever the read-ahead holds: a key here may be waiting for one of them.
            for (const message of taken) this.enqueue(message, true);
          }
          if (lookForStaleConsumers && taken.length < batchSize) {
            lookForStaleConsumers = false;
            await this.removeStaleConsumers();
          }
        }
        // Housekeeping (takeovers) comes round even while the read-ahead is full or a read blocks.
        const housekeepingAt = this.liveness.supported ? Math.min(nextReclaimAt, nextDeadCheckAt) : nextReclaimAt;
        // Reads refill the read-ahead once it is down to half, so each read brings a batch
        // rather than the one or two messages just finished.
        const lowWater = Math.floor(batchSize / 2);
        await this.scheduler.roomFor(lowWater + 1, this.abort.signal, housekeepingAt);
        if (this.stopping) break;
        if (this.scheduler.size > lowWater) continue;
        const room = Math.max(1, batchSize - this.scheduler.size);
        const blockMs = Math.min(settings.blocking_timeout_ms, Math.max(0, housekeepingAt - Date.now()));
        const batch = await broker.read(stream, group, consumer, { count: room, blockMs });
        if (failures > 0) this.log.info('subscription recovered', { afterFailures: failures });
        failures = 0;
        this.lastError = null;
        if (!this.stopping) this.state = 'running';
        if (this.stopping) {
          await this.giveBack(batch);
          break;
        }
        // A broker that redelivers through `read` (no RECLAIM_PENDING: NATS JetStream) hands back
        // a dead consumer's messages here; they count towards the poison-pill check like reclaims.
        const redelivers = !broker.has('RECLAIM_PENDING');
        for (const message of batch) this.enqueue(message, redelivers && message.deliveryCount > 1);
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
        if (!isOutage(err)) {
          await abortableSleep(delayMs, this.abort.signal);
        } else if (await sleepUntilRecovered(delayMs, this.abort.signal, () => broker.ping())) {
          // The broker answers again: ready now, not after the next blocking read returns.
          this.state = 'running';
          this.lastError = null;
        }
      }
    }
    await this.stop();
    this.state = 'stopped';
    this.log.info('subscription stopped', { ...this.counters });
  }

  private enqueue(message: ReceivedMessage, reclaimed: boolean): void {
    // Without the inbox there is no order to keep: every message is its own key.
    const position = this.options.inbox ? positionOf(message.envelope) : null;
    const item: Queued = position ? { message, key: position.key, sequence: position.sequence } : { message, key: `#${message.id}`, sequence: 0 };
    if (this.scheduler.add(item) && reclaimed) this.reclaimedIds.add(message.id);
    if (this.options.runsHandlerFor?.(message) ?? true) this.options.flow?.seen(message);
  }

  /**
   * Messages read ahead wait here for their key's turn, however long that takes; touching them
   * keeps another live worker's `claim_idle_ms` reclaim from taking them (and from counting a
   * delivery that would make them look like a poison pill). A message whose handler has run for
   * `claim_idle_ms` is no longer touched: that stays the bound for a hung one.
   */
  private async keepHeldMessages(): Promise<void> {
    const { broker, stream, group, consumer } = this.options;
    const ids = this.scheduler.heldIds(this.options.reclaimIdleMs);
    if (ids.length === 0 || !broker.has('RECLAIM_PENDING')) return;
    try {
      await broker.touchPending(stream, group, consumer, ids);
    } catch (err) {
      this.log.warn('could not mark the messages read ahead as still held; another consumer may take them over', { count: ids.length, error: err });
    }
  }

  /** Pending messages of dead consumers; a failure is logged and the loop goes on reading new ones. */
  private async reclaim(): Promise<ReceivedMessage[]> {
    const { broker, stream, group, consumer, batchSize, reclaimIdleMs } = this.options;
    // Brokers without RECLAIM_PENDING (NATS JetStream, RabbitMQ) hand a dead consumer's unacked messages back themselves.
    if (!broker.has('RECLAIM_PENDING') || this.takeOverRoom === 0) return [];
    try {
      return await broker.reclaim(stream, group, consumer, reclaimIdleMs, Math.min(batchSize, this.takeOverRoom));
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

  /** Read but not started: handed back so another consumer takes them at once. */
  private async giveBack(messages: readonly ReceivedMessage[]): Promise<void> {
    const { broker, stream, group } = this.options;
    for (const message of messages) await broker.nack(stream, group, message.id).catch(() => undefined);
    if (messages.length) this.log.info('stopping: handed unprocessed messages back to the group', { count: messages.length });
  }
}

/** A broker that cannot be reached (not a failed call): worth resuming the moment it answers again. */
function isOutage(error: unknown): boolean {
  return error instanceof BrokerUnavailableError || (error instanceof Error && error.name === 'BrokerUnavailableError');
}
