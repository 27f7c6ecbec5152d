/**
 * Relays one database's outbox rows to one broker: claim a batch, publish it in one broker call,
 * record the outcome. A heartbeat renews the lock of the rows it holds meanwhile, and a row it
 * gives up on is handed to the `domain.onAbandoned` listeners. A commit wakes it (the store's
 * `onAppended`), polling every `tick_interval` is the safety net. Broker outages pause it without
 * charging attempts, database outages make it wait and retry; its loop never throws, so it cannot
 * take the server down.
 */
import { getLogger, systemClock, type Broker, type Clock, type Logger, type OutboxConfig, type OutboxRow, type OutboxStore } from '@protean-ts/core';
import { AbandonAlerts } from './abandon-alerts.js';
import { Backoff } from './backoff-schedule.js';
import { checkProcessorConfig } from './check-processor-config.js';
import { DuePromotion } from './due-promotion.js';
import { LockHeartbeat } from './lock-heartbeat.js';
import { cleanUpOutbox } from './outbox-cleanup.js';
import { OutboxConfigError } from './outbox-config.error.js';
import type { OutboxProcessorOptions } from './outbox-processor-options.js';
import type { OutboxProcessorMetrics, OutboxProcessorState, OutboxProcessorTotals } from './outbox-processor-metrics.js';
import { publishTraced } from './publish-traced.js';
import { probeUntilReachable } from './probe-broker.js';
import { RateWindow } from './rate-window.js';
import { RelayBackPressure } from './relay-back-pressure.js';
import { RelayLog } from './relay-log.js';
import { withStoreCounts } from './store-counts.js';
import { OutcomeRecorder, type Unsettled } from './outcome-recorder.js';
import { emptyResult, type TickResult } from './tick-result.js';
import { Waker } from './waker.js';
import { message } from './error-message.js';

const DEFAULT_LISTENER_TIMEOUT_MS = 5_000;
const MIN_TICK_MS = 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class OutboxProcessor {
  readonly name: string;
  readonly targetBroker: string;
  /** Stream partitions on the target broker: `outbox.partitions` on the domain's own broker, 1 on an external one. */
  readonly partitions: number;
  readonly workerId: string;
  private readonly store: OutboxStore;
  private readonly broker: Broker;
  private readonly config: OutboxConfig;
  private readonly log: Logger;
  private readonly lockMs: number;
  private readonly tickMs: number;
  private readonly lanes: number;
  /** Rows one cycle claims: the lane's share of `messages_per_tick`. */
  private readonly claimLimit: number;
  private readonly cleanupBatchSize: number;
  private readonly random: () => number;
  private readonly clock: Clock;
  private readonly probeBackoff: Backoff;
  private readonly databaseBackoff: Backoff;
  private readonly locks: LockHeartbeat;
  private readonly alerts: AbandonAlerts;
  private readonly promotion: DuePromotion;
  private readonly relayLog: RelayLog;
  private readonly recorder: OutcomeRecorder;
  readonly backPressure: RelayBackPressure;
  // `work` is woken by commits and stop(); `stopped` only by stop(), so an outage's probe delay
  // is not cut short by every commit that happens meanwhile.
  private readonly work = new Waker();
  private readonly stopSignal = new Waker();
  private readonly rate = new RateWindow(60);
  private readonly total: Omit<OutboxProcessorTotals, 'abandonAlertsFailed' | 'abandonAlertsDropped'> = {
    published: 0,
    failed: 0,
    abandoned: 0,
    abandonedPastMaxTotalSeconds: 0,
    released: 0,
    lostLocks: 0,
    batches: 0,
    ticks: 0,
    cleanedPublished: 0,
    cleanedAbandoned: 0,
  };
  private currentState: OutboxProcessorState = 'new';
  private stopping = false;
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(options: OutboxProcessorOptions) {
    checkProcessorConfig(options.config);
    this.name = options.name;
    this.store = options.store;
    this.broker = options.broker;
    this.targetBroker = options.broker.name;
    this.config = options.config;
    // External consumers read the streams by their own names: only protean subscriptions read partitions.
    this.partitions = this.targetBroker === options.config.broker ? (options.config.partitions ?? 1) : 1;
    this.workerId = options.workerId;
    this.lockMs = options.config.lock_seconds * 1000;
    // 0 means "poll as often as sensible": a floor keeps an idle processor from spinning on the database.
    this.tickMs = Math.max(MIN_TICK_MS, options.config.tick_interval * 1000);
    const lanes = options.lanes ?? 1;
    if (!Number.isSafeInteger(lanes) || lanes < 1)
      throw new OutboxConfigError('lanes', `(processor option) must be an integer of at least 1, got ${String(lanes)}`);
    // lanes × claimLimit never exceeds messages_per_tick: that is the processor's memory bound.
    this.lanes = Math.min(lanes, options.config.messages_per_tick);
    this.claimLimit = Math.floor(options.config.messages_per_tick / this.lanes);
    this.cleanupBatchSize = options.cleanupBatchSize ?? 1000;
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
    this.probeBackoff = new Backoff(options.brokerProbe ?? { initialMs: 100, maxMs: 5_000 });
    this.databaseBackoff = new Backoff(options.databaseRetry ?? { initialMs: 200, maxMs: 10_000 });
    this.log = (options.logger ?? getLogger('outbox')).child({ processor: this.name, broker: this.targetBroker, worker: this.workerId });
    this.relayLog = new RelayLog(this.log);
    this.backPressure = new RelayBackPressure(this.broker, this.config, this.log);
    this.promotion = new DuePromotion(this.store, this.targetBroker, this.tickMs, this.log, this.clock, () => this.work.wake());
    this.locks = new LockHeartbeat(this.store, this.workerId, this.lockMs, this.log);
    const listenerTimeoutMs = options.abandonListenerTimeoutMs ?? DEFAULT_LISTENER_TIMEOUT_MS;
    if (!(listenerTimeoutMs > 0)) {
      throw new OutboxConfigError('abandonListenerTimeoutMs', `(processor option) must be a positive number of milliseconds, got ${String(listenerTimeoutMs)}`);
    }
    this.alerts = new AbandonAlerts(options.abandonedListeners ?? (() => []), listenerTimeoutMs, this.log);
    this.recorder = new OutcomeRecorder({
      store: this.store,
      broker: this.broker,
      targetBroker: this.targetBroker,
      partitions: this.partitions,
      workerId: this.workerId,
      config: this.config,
      log: this.log,
      locks: this.locks,
      alerts: this.alerts,
      rate: this.rate,
      random: this.random,
      clock: this.clock,
      total: this.total,
      persist: (what, write, ids) => this.persist(what, write, ids),
    });
  }

  get state(): OutboxProcessorState {
    return this.currentState;
  }

  /** Starts relaying in the background; resolves once running. */
  async start(): Promise<void> {
    if (this.currentState !== 'new') throw new Error(`Outbox processor "${this.name}" was already started; create a new one to start again`);
    this.currentState = 'running';
    await this.subscribe();
    this.log.info('outbox processor started', {
      messagesPerTick: this.config.messages_per_tick,
      lanes: this.lanes,
      tickIntervalMs: this.tickMs,
      lockMs: this.lockMs,
      wakeOnCommit: this.unsubscribe !== null,
    });
    this.loop = this.run();
  }

  /** Finishes the batch in flight, then stops. */
  async stop(): Promise<void> {
    if (this.currentState === 'new' || this.currentState === 'stopped') {
      this.currentState = 'stopped';
      return;
    }
    this.stopping = true;
    this.promotion.stop();
    this.currentState = 'stopping';
    this.work.wake();
    this.stopSignal.wake();
    await this.loop;
    await this.locks.stop();
    await this.alerts.settle();
    await this.unsubscribe?.().catch(() => undefined);
    this.unsubscribe = null;
    this.currentState = 'stopped';
    this.log.info('outbox processor stopped', { ...this.total });
  }

  /** One claim → publish → record cycle; the loop runs these, tests may call it directly. */
  async tick(batch = 1): Promise<TickResult> {
    return (await this.cycle(batch, null, false)).result;
  }

  /**
   * One cycle. `settle` is the previous cycle's batch, published but not yet marked: the claim
   * marks it in the same statement (`markPublishedAndClaim`, one round trip). With `defer`, this
   * cycle's own published rows are handed back to be settled by the next claim instead of marked
   * here; the caller marks them itself if no claim follows.
   */
  private async cycle(batch: number, settle: Unsettled | null, defer: boolean): Promise<{ result: TickResult; unsettled: Unsettled | null }> {
    const result = emptyResult();
    const claimedAt = Date.now();
    const request = { workerId: this.workerId, targetBroker: this.targetBroker, limit: this.claimLimit, lockMs: this.lockMs };
    let rows: OutboxRow[];
    try {
      if (settle) {
        const settled = settle.rows.map((row) => row.id);
        const done = await this.store.markPublishedAndClaim(settled, request);
        this.locks.drop(settled);
        this.recorder.countPublished(settle.rows.length, done.marked, result);
        rows = done.rows;
      } else {
        // Rows whose due time has come join the queue first (one indexed statement; nothing when
        // none are due): at a manual tick, when the due timer fired, and at most once per poll
        // interval otherwise. A commit's wake-up skips it: that saves a round trip before the
        // claim of every quiet message, and a due row still goes out within one interval.
        if (!defer || this.promotion.due()) await this.promotion.promote();
        rows = await this.store.claimBatch(request);
      }
    } catch (error) {
      result.databaseUnavailable = true;
      this.databaseDown('claim outbox rows', error);
      // Nothing of the statement happened: the previous batch is marked on its own, with retries.
      if (settle) await this.recorder.published(settle, result);
      return { result, unsettled: null };
    }
    this.databaseUp();
    result.claimed = rows.length;
    if (rows.length === 0) return { result, unsettled: null };
    this.locks.hold(
      rows.map((row) => row.id),
      claimedAt,
    );
    this.total.batches += 1;
    this.log.debug(`batch ${batch}: found ${rows.length} messages`, { batch, count: rows.length });

    try {
      const outcome = await publishTraced(this, this.broker, rows);
      this.relayLog.published(outcome.published);
      this.backPressure.published(outcome.published, this.partitions);
      const published = outcome.published.length > 0 ? { rows: outcome.published } : null;
      const unsettled = defer && !outcome.outage ? published : null;
      if (published && !unsettled) await this.recorder.published(published, result);
      await this.recorder.failed(outcome, result);
      await this.recorder.releaseUnsent(outcome, result);
      if (outcome.outage) {
        result.brokerUnavailable = true;
        this.brokerDown(outcome.outage, outcome.unsent.length);
      }
      return { result, unsettled };
    } catch (error) {
      // A bug, not an outage: stop renewing these rows, so their locks run out and another
      // claim takes them, rather than holding them for as long as this process lives.
      this.locks.drop(rows.map((row) => row.id));
      throw error;
    }
  }

  /** What this processor did since it started, without asking the database (metrics read it at every scrape). */
  totals(): OutboxProcessorTotals {
    return { ...this.total, abandonAlertsFailed: this.alerts.counts.failed, abandonAlertsDropped: this.alerts.counts.dropped };
  }

  /** Counts for this processor's broker plus what this processor did. */
  async metrics(): Promise<OutboxProcessorMetrics> {
    const base = {
      name: this.name,
      targetBroker: this.targetBroker,
      workerId: this.workerId,
      state: this.currentState,
      publishedPerSecond: this.rate.perSecond(),
      totals: this.totals(),
      heldRows: this.locks.heldCount,
      backPressure: this.backPressure.status(),
    };
    return withStoreCounts(base, this.store, this.targetBroker);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        if (this.currentState === 'broker-unavailable') {
          await this.probeBroker();
          continue;
        }
        if (await this.backPressure.holdsBack(this.stopSignal)) continue;
        const more = await this.pass();
        this.total.ticks += 1;
        if ((this.total.ticks - 1) % this.config.cleanup.cleanup_interval_ticks === 0) await this.cleanup();
        if (this.unsubscribe === null && !this.stopping) await this.subscribe();
        if (this.stopping || more) continue;
        if (this.currentState === 'database-unavailable') await this.stopSignal.sleep(this.databaseBackoff.next());
        else if (this.currentState === 'running') await this.work.sleep(this.tickMs);
      } catch (error) {
        // A bug, not an outage: log it and keep the relay alive rather than stop publishing.
        this.log.error('outbox processor loop failed; continuing', { error: message(error) });
        await this.stopSignal.sleep(this.tickMs);
      }
    }
  }

  /**
   * Claims and publishes until a claim comes back empty, for at most one tick interval, so cleanup
   * and the poll still get their turn under sustained load. Returns true when work remains.
   */
  private async pass(): Promise<boolean> {
    const started = Date.now();
    const progress = { batches: 0, published: 0, failed: 0 };
    const lanes = await Promise.all(Array.from({ length: this.lanes }, () => this.lane(started, progress)));
    const more = lanes.some((unfinished) => unfinished);
    this.relayLog.pass({ ...progress, started }, this.total.published, this.rate.perSecond());
    return more;
  }

  /**
   * One lane of a pass: cycles until nothing is claimable, an outage, or the tick is used up. Each
   * claim marks the batch the previous cycle published; the last batch is marked on its own.
   */
  private async lane(started: number, progress: { batches: number; published: number; failed: number }): Promise<boolean> {
    let unsettled: Unsettled | null = null;
    const count = (result: TickResult) => {
      progress.published += result.published;
      progress.failed += result.failed;
    };
    try {
      for (;;) {
        const cycle = await this.cycle(progress.batches + 1, unsettled, true);
        unsettled = cycle.unsettled;
        const result = cycle.result;
        if (result.claimed > 0) progress.batches += 1;
        count(result);
        if (this.stopping || result.claimed === 0 || result.brokerUnavailable || result.databaseUnavailable) return false;
        if (this.currentState !== 'running' && this.currentState !== 'new') return false;
        // A pass ends early when the consumers' lag is due a look: back-pressure bounds what one check lets through.
        if (Date.now() - started >= this.tickMs || this.backPressure.due()) return true;
      }
    } finally {
      if (unsettled) {
        const result = emptyResult();
        await this.recorder.published(unsettled, result);
        count(result);
      }
    }
  }

  /**
   * Runs a write about rows this worker holds, retrying while the database is unreachable, but
   * only until their lock expires (the heartbeat cannot renew it while the database is away):
   * after that another worker may own them, and the rows come back on their own. Returns null
   * when it gave up.
   */
  private async persist<T>(what: string, write: () => Promise<T>, ids: readonly string[]): Promise<T | null> {
    const deadline = this.locks.lockedUntil(ids);
    for (;;) {
      try {
        const value = await write();
        this.databaseUp();
        return value;
      } catch (error) {
        const delay = this.databaseBackoff.next();
        this.databaseDown(what, error, delay);
        if (this.stopping || Date.now() + delay >= deadline) return null;
        await sleep(delay);
      }
    }
  }

  private brokerDown(error: Error, released: number): void {
    if (this.currentState !== 'running') return;
    this.currentState = 'broker-unavailable';
    this.probeBackoff.reset();
    this.log.warn('broker unreachable; pausing the outbox processor and probing (no attempts are consumed)', { error: error.message, released });
  }

  private async probeBroker(): Promise<void> {
    const back = await probeUntilReachable(this.broker, this.probeBackoff, this.stopSignal, () => this.stopping);
    if (!back) return;
    this.currentState = 'running';
    this.log.info('broker reachable again; resuming', back);
  }

  private databaseDown(what: string, error: unknown, retryInMs?: number): void {
    const first = this.currentState !== 'database-unavailable';
    if (this.currentState === 'running' || this.currentState === 'database-unavailable') this.currentState = 'database-unavailable';
    const fields = { operation: what, error: message(error), ...(retryInMs === undefined ? {} : { retryInMs }) };
    // A pool whose connections are all busy is load, not an outage: worth a warning, not an ERROR.
    if ((error as Error | undefined)?.name === 'PoolExhaustedError')
      this.log.warn('no database connection free in time; the outbox processor will retry', fields);
    else if (first) this.log.error('database unreachable; the outbox processor will retry', fields);
    else this.log.warn('database still unreachable', fields);
  }

  private databaseUp(): void {
    if (this.currentState !== 'database-unavailable') return;
    this.currentState = this.stopping ? 'stopping' : 'running';
    this.databaseBackoff.reset();
    this.log.info('database reachable again; resuming');
  }

  private async cleanup(): Promise<void> {
    const removed = await cleanUpOutbox(this.store, this.config.cleanup, this.cleanupBatchSize, this.log, this.clock);
    if (!removed) return;
    this.total.cleanedPublished += removed.published;
    this.total.cleanedAbandoned += removed.abandoned;
  }

  private async subscribe(): Promise<void> {
    try {
      this.unsubscribe = await this.store.onAppended(() => this.work.wake());
    } catch (error) {
      this.unsubscribe = null;
      this.log.warn(`cannot listen for commits; polling every ${this.tickMs} ms until it can`, { error: message(error) });
    }
  }
}
