/**
 * An event-store subscription: one per event handler whose subscription type is `event_store`.
 * It reads the handler's category from the event store (never skipping a committed event), runs
 * each event through the same KeyScheduler and MessageRunner as stream subscriptions (retries,
 * dead letters, up to `concurrency` streams at once, one event at a time per stream in stream
 * order) and the inbox, written in the handler's transaction (each event once, in order), and
 * keeps a resume cursor beside the events.
 *
 * Workers share it through a lease row in the event store's database (event-store-lease.ts): the
 * holder reads, the others stand by and take over when it stops renewing. The cursor is saved a
 * moment after events finish, only up to where every earlier event is done; a worker that takes
 * over reads again from there, and the inbox recognises what was handled already.
 */
import {
  eventStoreInboxName,
  cursorOf,
  envelopeOf,
  MAX_PAGE_SIZE,
  START_CURSOR,
  withPosition,
  type ClassRef,
  type Domain,
  type EventStore,
  type EventStoreSubscriptionConfig,
  type Logger,
  type ReaderCursor,
  type ReceivedMessage,
  type StoredEvent,
  type StreamSubscriptionConfig,
} from '@protean-ts/core';
import { cursorAtOrAfter } from '../status/events-behind.js';
import { abortableSleep, backoffDelay } from './abortable-sleep.js';
import { CursorTracker } from './cursor-tracker.js';
import { EventStoreLease } from './event-store-lease.js';
import { handledTypes } from './handled-types.js';
import { waitingOutRebuilds } from './projection-rebuild-wait.js';
import { KeyScheduler, type HeadResult, type Queued } from './key-scheduler.js';
import { errorText, MessageRunner } from './message-runner.js';
import { PassBatcher } from './pass-batcher.js';
import { isPermanentMessageError } from './stream-subscription.js';
import { SubscriptionLifecycle } from './subscription-lifecycle.js';
import type { Subscription, SubscriptionStatus } from './subscription-status.js';

export interface EventStoreSubscriptionOptions {
  domain: Domain;
  handler: ClassRef;
  /** The subscription's name: the handler's subscriptionName. */
  name: string;
  /** The category read (`<domain>::<category>`). */
  category: string;
  store: EventStore;
  /** The `[databases.<name>]` whose event store it is (shown in status and logs). */
  database: string;
  /** This worker's name: the lease owner. */
  consumer: string;
  settings: StreamSubscriptionConfig;
  eventStoreSettings: EventStoreSubscriptionConfig;
  /** Events read ahead at most (`server.messages_per_tick`). */
  batchSize: number;
  logger: Logger;
}

/** Finished events settle the cursor; it is saved this long after the first of them. */
const CURSOR_SAVE_DELAY_MS = 200;
/** A standby worker asks for the lease at least this often (more often with short leases). */
const MAX_STANDBY_POLL_MS = 1_000;

// Named in core, where a projection rebuild records replayed events in the same inbox.
export { eventStoreInboxName };

export class EventStoreSubscription extends SubscriptionLifecycle implements Subscription {
  readonly name: string;
  private readonly abort = new AbortController();
  protected readonly log: Logger;
  private lastError: string | null = null;
  private readonly runner: MessageRunner;
  private readonly lease: EventStoreLease;
  private readonly leaseMs: number;
  /** The current lease term's read-ahead and resume point; null while not holding the lease. */
  private scheduler: KeyScheduler | null = null;
  private tracker: CursorTracker | null = null;
  private readCursor: ReaderCursor | null = null;
  /** Events read and not finished, by message id (their global position). */
  private readonly events = new Map<string, StoredEvent>();
  private readonly acked = new Set<string>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private saveTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  private savedCursor: ReaderCursor | null = null;
  private caughtUp = false;

  constructor(private readonly options: EventStoreSubscriptionOptions) {
    super();
    const { domain, handler, name, category, settings } = options;
    this.name = name;
    this.log = options.logger.child({ subscription: name, category, source: 'event_store' });
    this.leaseMs = Math.round(options.eventStoreSettings.lease_seconds * 1000);
    this.lease = new EventStoreLease(options.store.subscriptions, name, options.consumer, this.leaseMs);
    const inboxName = eventStoreInboxName(name);
    const inbox = domain.runtime.messages.inbox;
    const handles = handledTypes(domain, handler);
    this.runner = new MessageRunner({
      deadLetters: {
        move: (message, error) => this.deadLetter(message, error),
        where: `the dead letters of event-store subscription ${name} (protean-ts dlq list ${name})`,
        movedMessage: 'event moved to the dead letters of its event-store subscription',
      },
      stream: category,
      group: inboxName,
      settings,
      handle: async (message, { jumpGap, signal }) => {
        if (!handles(message.envelope.metadata.headers.type)) return 'skipped';
        return waitingOutRebuilds(
          () => domain.handleMessage(message.envelope, { handler, inbox: { subscription: inboxName, brokerMessageId: message.id, jumpGap } }),
          this.log,
          signal,
        );
      },
      jumpOver: (message) =>
        domain.runtime.messages.runOnce(message.envelope, { subscription: inboxName, brokerMessageId: message.id, jumpGap: true }, async () => {}),
      isPermanent: isPermanentMessageError,
      inbox: inbox ? { store: inbox, passes: new PassBatcher(inbox, inboxName) } : null,
      acks: { ack: (id) => this.settle(id) },
      counters: this.counters,
      metricLabels: { system: 'protean_event_store', subscription: name },
      signal: this.abort.signal,
      // Read at each use, so a test may replace domain.clock while the subscription runs.
      clock: { now: () => domain.clock.now() },
      log: this.log,
    });
  }

  status(): SubscriptionStatus {
    const { name, category, database } = this.options;
    return {
      name,
      kind: 'event_store',
      stream: category,
      group: name,
      broker: `event_store(${database})`,
      state: this.state,
      lastError: this.lastError,
      inFlight: this.scheduler?.size ?? 0,
      ...this.counters,
    };
  }

  /** True while this worker holds the lease and its last read reached the category's head with nothing in flight. */
  get isCaughtUp(): boolean {
    return this.lease.isHeld && this.caughtUp && (this.scheduler?.size ?? 0) === 0;
  }

  /** For a worker standing by: null when no event follows the cursor the lease holder saved, else what is left. */
  async unhandledAfterSavedCursor(): Promise<string | null> {
    const { store, category } = this.options;
    const state = (await store.subscriptions.states()).find((s) => s.subscription === this.name);
    const saved = state?.cursor ?? START_CURSOR;
    // Committed events a reader may not take yet count too (see eventsHeldBack).
    const end = await store.committedEnd([category]);
    return cursorAtOrAfter(saved, end) ? null : `events after the cursor saved by the lease holder (${state?.owner ?? 'none'})`;
  }

  /**
   * For the lease holder that read to the head: null when nothing committed follows what it read,
   * else why not. A read comes back empty while a transaction still open anywhere on the database
   * server holds back events committed after it began (ReaderCursor): caught up is not drained.
   */
  async eventsHeldBack(): Promise<string | null> {
    const end = await this.options.store.committedEnd([this.options.category]);
    if (cursorAtOrAfter(this.readCursor ?? START_CURSOR, end)) return null;
    return 'events committed but held back from readers by a transaction still open on the database server';
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  protected async run(): Promise<void> {
    const { batchSize } = this.options;
    let failures = 0;
    while (!this.stopping) {
      try {
        if (this.scheduler && !this.lease.isHeld) await this.endTerm('another worker took the lease over (this worker did not renew it in time)');
        if (!this.lease.isHeld) {
          const cursor = await this.lease.acquire();
          failures = 0;
          if (!cursor) {
            this.standBy();
            await abortableSleep(Math.min(MAX_STANDBY_POLL_MS, Math.floor(this.leaseMs / 2)), this.abort.signal);
            continue;
          }
          this.beginTerm(cursor);
        }
        if (!(await this.lease.renewIfDue())) continue;
        const scheduler = this.scheduler!;
        const lowWater = Math.floor(batchSize / 2);
        await scheduler.roomFor(lowWater + 1, this.abort.signal, this.lease.nextRenewalAt);
        if (this.stopping) break;
        if (scheduler.size > lowWater) continue;
        const room = Math.max(1, Math.min(MAX_PAGE_SIZE, batchSize - scheduler.size));
        const page = await this.options.store.readCategory(this.options.category, { after: this.readCursor!, limit: room });
        if (failures > 0) this.log.info('subscription recovered', { afterFailures: failures });
        failures = 0;
        this.lastError = null;
        if (this.stopping) break;
        this.state = 'running';
        for (const event of page.events) this.enqueue(scheduler, event);
        this.readCursor = page.cursor;
        this.caughtUp = page.events.length < room;
        if (page.events.length === 0) {
          const untilRenewal = Math.max(0, this.lease.nextRenewalAt - Date.now());
          await abortableSleep(Math.min(this.options.eventStoreSettings.poll_interval_ms, untilRenewal), this.abort.signal);
        }
      } catch (err) {
        if (this.stopping) break;
        failures += 1;
        const delayMs = backoffDelay(failures);
        this.state = 'backing-off';
        this.lastError = errorText(err, 500);
        if (failures === 1 || failures % 10 === 0) this.log.warn('event-store subscription failed; backing off', { error: err, failures, delayMs });
        await abortableSleep(delayMs, this.abort.signal);
      }
    }
    await this.stop();
    this.state = 'stopped';
    this.log.info('subscription stopped', { ...this.counters });
  }

  private standBy(): void {
    if (this.state === 'standby') return;
    this.state = 'standby';
    this.log.info("standing by: another worker holds this subscription's lease", { leaseSeconds: this.leaseMs / 1000 });
  }

  private beginTerm(cursor: ReaderCursor): void {
    const concurrency = Math.max(1, this.options.settings.concurrency);
    this.scheduler = new KeyScheduler(concurrency, (item) => this.runHead(item));
    this.tracker = new CursorTracker(cursor);
    this.readCursor = cursor;
    this.savedCursor = cursor;
    this.caughtUp = false;
    this.state = 'running';
    this.log.info('subscription started: holds the lease, reading the category', {
      consumer: this.options.consumer,
      from: cursor,
      concurrency,
      inbox: this.options.domain.runtime.messages.inbox !== null,
    });
  }

  /** The lease is gone: finish what runs (the inbox keeps it once-only) and drop the read-ahead. */
  private async endTerm(reason: string): Promise<void> {
    this.log.warn(`lease lost: ${reason}; stopping reading and standing by`);
    const scheduler = this.scheduler;
    this.scheduler = null;
    this.tracker = null;
    this.lease.drop();
    await scheduler?.stop();
    this.clearTimers();
    this.events.clear();
    this.acked.clear();
  }

  private enqueue(scheduler: KeyScheduler, event: StoredEvent): void {
    const id = String(event.globalPosition);
    // The stream position is the key's sequence: the inbox keeps each stream's events in order.
    const sequence = event.position + 1;
    const message: ReceivedMessage = {
      id,
      stream: event.streamName,
      envelope: withPosition(envelopeOf(event), { key: event.streamName, sequence }),
      deliveryCount: 1,
    };
    this.events.set(id, event);
    this.tracker!.read(id, cursorOf(event));
    scheduler.add({ message, key: event.streamName, sequence });
  }

  private async runHead(item: Queued): Promise<HeadResult> {
    const result = await this.runner.run(item, false);
    if (result.done && !this.acked.delete(item.message.id)) this.tryAgainLater(item);
    return result;
  }

  /**
   * Failed and not dead-lettered (`enable_dlq = false`, or the dead letter could not be written):
   * the event stays unsettled, so the cursor waits for it, and it is tried again after a lease
   * length, as a broker would redeliver it after its idle time.
   */
  private tryAgainLater(item: Queued): void {
    const scheduler = this.scheduler;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (scheduler === this.scheduler && !this.stopping) {
        scheduler?.add({ ...item, message: { ...item.message, deliveryCount: item.message.deliveryCount + 1 } });
      }
    }, this.leaseMs);
    timer.unref();
    this.retryTimers.add(timer);
  }

  /** The event is done with (handled, skipped, passed or dead-lettered): the cursor may move past it. */
  private settle(id: string): void {
    this.acked.add(id);
    this.events.delete(id);
    if (this.tracker?.done(id)) this.scheduleSave();
  }

  private async deadLetter(message: ReceivedMessage, error: string): Promise<void> {
    const event = this.events.get(message.id);
    if (!event) throw new Error(`event ${message.id} is no longer held by subscription ${this.name}`);
    await this.options.store.subscriptions.addDeadLetter({
      subscription: this.name,
      globalPosition: event.globalPosition,
      streamName: event.streamName,
      position: event.position,
      messageId: event.messageId,
      type: event.type,
      error,
    });
    this.settle(message.id);
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      void this.saveCursor();
    }, CURSOR_SAVE_DELAY_MS);
  }

  /** One save at a time; a failure is logged and the next save carries the cursor. */
  private saveCursor(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const cursor = this.tracker?.settled;
      if (!cursor || !this.lease.isHeld || sameCursor(cursor, this.savedCursor)) return;
      try {
        if (await this.lease.saveCursor(cursor)) this.savedCursor = cursor;
        else this.log.warn('the cursor was not saved: another worker holds the lease now');
      } catch (error) {
        this.log.warn('saving the cursor failed; the next save carries it', { error });
      }
    });
    return this.saving;
  }

  private clearTimers(): void {
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
  }

  protected async shutdown(): Promise<void> {
    if (this.state !== 'stopped') this.state = 'stopping';
    this.abort.abort();
    await this.scheduler?.stop();
    this.clearTimers();
    await this.saveCursor();
    try {
      await this.lease.release();
    } catch (error) {
      this.log.warn('releasing the lease failed; a standby takes over when it runs out', { error, leaseSeconds: this.leaseMs / 1000 });
    }
  }
}

function sameCursor(a: ReaderCursor, b: ReaderCursor | null): boolean {
  return b !== null && a.transactionId === b.transactionId && a.globalPosition === b.globalPosition;
}
