/**
 * Relays one database's outbox rows to one broker: claim a batch, publish it in one broker call,
 * record the outcome. A heartbeat renews the lock of the rows it holds meanwhile, and a row it
 * gives up on is handed to the `domain.onAbandoned` listeners. A commit wakes it (the store's
 * `onAppended`), polling every `tick_interval` is the safety net. Broker outages pause it without
 * charging attempts, database outages make it wait and retry; its loop never throws, so it cannot
 * take the server down.
 */
import { getLogger, type AbandonedMessageListener, type Broker, type Logger, type OutboxConfig, type OutboxRow, type OutboxStore } from '@protean-ts/core';
import { AbandonAlerts } from './abandon-alerts.js';
import { Backoff, type BackoffSchedule } from './backoff-schedule.js';
import { checkProcessorConfig } from './check-processor-config.js';
import { abandonedMessage, planFailures } from './failure-updates.js';
import { LockHeartbeat } from './lock-heartbeat.js';
import { OutboxConfigError } from './outbox-config.error.js';
import type { OutboxProcessorMetrics, OutboxProcessorState, OutboxProcessorTotals } from './outbox-processor-metrics.js';
import type { PublishOutcome } from './publish-claimed.js';
import { publishTraced } from './publish-traced.js';
import { publishPositionMarkers } from './position-markers.js';
import { RateWindow } from './rate-window.js';
import { Waker } from './waker.js';

export interface OutboxProcessorOptions {
  /** `outbox-processor-<db>-to-<broker>` (see `outboxProcessorName`). */
  name: string;
  store: OutboxStore;
  /** Rows whose `targetBroker` is this broker's name are relayed to it. */
  broker: Broker;
  config: OutboxConfig;
  /** Unique per process (and per processor in it): claims are locked under this id. */
  workerId: string;
  logger?: Logger;
  /**
   * Read at each abandonment (so listeners added later are heard): who to alert when a row is
   * abandoned. `createOutboxProcessors` passes `domain.abandonedListeners`.
   */
  abandonedListeners?: () => readonly AbandonedMessageListener[];
  /** How long one abandoned-message listener call may run before it is logged as hung. Default 5 s. */
  abandonListenerTimeoutMs?: number;
  /** Rows deleted per cleanup statement. Default 1000. */
  cleanupBatchSize?: number;
  /** Probing an unreachable broker. Default 100 ms doubling to 5 s. */
  brokerProbe?: BackoffSchedule;
  /** Retrying an unreachable database. Default 200 ms doubling to 10 s. */
  databaseRetry?: BackoffSchedule;
  /**
   * Claim → publish → record cycles kept in flight at once (default 1). More lanes overlap one
   * batch's database writes with the next one's broker round trip, which can pay off with a
   * distant broker; with a local Redis two lanes measured slower (they walk the same keys). Each
   * lane claims its share of `messages_per_tick`, so the processor never holds more rows than that,
   * and order per key is kept: a key whose head is in flight in one lane is skipped by the others.
   */
  lanes?: number;
  /** Source of jitter, for tests. */
  random?: () => number;
}

/** What one claim → publish → record cycle did. */
export interface TickResult {
  claimed: number;
  published: number;
  failed: number;
  abandoned: number;
  released: number;
  lostLocks: number;
  brokerUnavailable: boolean;
  databaseUnavailable: boolean;
}

/** Rows a cycle published and has not marked yet (the heartbeat keeps their lock meanwhile). */
interface Unsettled {
  rows: OutboxRow[];
}

const emptyResult = (): TickResult => ({
  claimed: 0,
  published: 0,
  failed: 0,
  abandoned: 0,
  released: 0,
  lostLocks: 0,
  brokerUnavailable: false,
  databaseUnavailable: false,
});

const DEFAULT_LISTENER_TIMEOUT_MS = 5_000;
const REPORT_EVERY_MS = 60_000;
const MIN_TICK_MS = 10;
/** Scheduled rows promoted per claim at most; more wait for the next one. */
const PROMOTE_LIMIT = 1000;
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
  private readonly probeBackoff: Backoff;
  private readonly databaseBackoff: Backoff;
  private readonly locks: LockHeartbeat;
  private readonly alerts: AbandonAlerts;
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
  private reported = { at: Date.now(), published: 0 };

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
    this.probeBackoff = new Backoff(options.brokerProbe ?? { initialMs: 100, maxMs: 5_000 });
    this.databaseBackoff = new Backoff(options.databaseRetry ?? { initialMs: 200, maxMs: 10_000 });
    this.log = (options.logger ?? getLogger('outbox')).child({ processor: this.name, broker: this.targetBroker, worker: this.workerId });
    this.locks = new LockHeartbeat(this.store, this.workerId, this.lockMs, this.log);
    const listenerTimeoutMs = options.abandonListenerTimeoutMs ?? DEFAULT_LISTENER_TIMEOUT_MS;
    if (!(listenerTimeoutMs > 0)) {
      throw new OutboxConfigError('abandonListenerTimeoutMs', `(processor option) must be a positive number of milliseconds, got ${String(listenerTimeoutMs)}`);
    }
    this.alerts = new AbandonAlerts(options.abandonedListeners ?? (() => []), listenerTimeoutMs, this.log);
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
    if (this.dueTimer) clearTimeout(this.dueTimer);
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
        this.countPublished(settle.rows.length, done.marked, result);
        rows = done.rows;
      } else {
        // Rows whose due time has come join the queue first (one indexed statement; nothing when
        // none are due): at a manual tick, when the due timer fired, and at most once per poll
        // interval otherwise. A commit's wake-up skips it: that saves a round trip before the
        // claim of every quiet message, and a due row still goes out within one interval.
        if (!defer || this.promotionDue()) await this.promoteDue();
        rows = await this.store.claimBatch(request);
      }
    } catch (error) {
      result.databaseUnavailable = true;
      this.databaseDown('claim outbox rows', error);
      // Nothing of the statement happened: the previous batch is marked on its own, with retries.
      if (settle) await this.recordPublished(settle, result);
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
      this.logPublished(outcome.published);
      const published = outcome.published.length > 0 ? { rows: outcome.published } : null;
      const unsettled = defer && !outcome.outage ? published : null;
      if (published && !unsettled) await this.recordPublished(published, result);
      await this.recordFailed(outcome, result);
      await this.releaseUnsent(outcome, result);
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

  /**
   * Makes due scheduled rows pending, so the claim that follows takes them, and arranges a wake-up
   * at the next due time when that comes before the next poll.
   */
  private async promoteDue(): Promise<void> {
    const startedAt = Date.now();
    const timerFired = this.dueTimerFired;
    // Cleared first: a due timer firing while the statement runs asks for the next pass's promotion.
    this.dueTimerFired = false;
    let outcome: Awaited<ReturnType<OutboxStore['promoteDue']>>;
    try {
      outcome = await this.store.promoteDue(this.targetBroker, PROMOTE_LIMIT);
    } catch (error) {
      // Not done: the next pass promotes if the due timer or the interval since the last success says so.
      this.dueTimerFired ||= timerFired;
      throw error;
    }
    this.lastPromotionAt = startedAt;
    const { promoted, nextDueAt } = outcome;
    if (promoted > 0) this.log.debug(`${promoted} scheduled messages are due`, { count: promoted });
    this.wakeAt(nextDueAt);
  }

  private dueTimer: NodeJS.Timeout | undefined;
  /** When this processor last promoted due rows (0: never). */
  private lastPromotionAt = 0;
  /** The due timer woke the processor: the next pass promotes whatever the interval says. */
  private dueTimerFired = false;

  /** Whether a pass's first claim promotes due rows first: the due timer fired, or a poll interval passed. */
  private promotionDue(): boolean {
    return this.dueTimerFired || Date.now() - this.lastPromotionAt >= this.tickMs;
  }

  private wakeAt(due: Date | null): void {
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
    if (!due || this.stopping) return;
    const wait = due.getTime() - Date.now();
    // Only when it is nearer than the next poll; the poll covers the rest.
    if (wait >= this.tickMs) return;
    this.dueTimer = setTimeout(
      () => {
        this.dueTimerFired = true;
        this.work.wake();
      },
      Math.max(0, wait),
    );
    this.dueTimer.unref?.();
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
    };
    try {
      const counts = await this.store.counts(this.targetBroker);
      return {
        ...base,
        pending: counts.pending,
        processing: counts.processing,
        failed: counts.failed,
        abandoned: counts.abandoned,
        scheduled: counts.scheduled,
        oldestPendingAgeMs: counts.oldestPendingAgeMs,
      };
    } catch (error) {
      return { ...base, pending: null, processing: null, failed: null, abandoned: null, oldestPendingAgeMs: null, countsError: message(error) };
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        if (this.currentState === 'broker-unavailable') {
          await this.probeBroker();
          continue;
        }
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
    this.logPass(progress.batches, progress.published, progress.failed, started);
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
        if (Date.now() - started >= this.tickMs) return true;
      }
    } finally {
      if (unsettled) {
        const result = emptyResult();
        await this.recordPublished(unsettled, result);
        count(result);
      }
    }
  }

  // Per pass at debug (a quiet system would log every commit); a throughput line at info once a minute.
  private logPass(batches: number, published: number, failed: number, started: number): void {
    if (batches > 0) this.log.debug(`relayed ${published} messages in ${batches} batches`, { published, failed, batches, ms: Date.now() - started });
    const now = Date.now();
    if (now - this.reported.at < REPORT_EVERY_MS) return;
    const count = this.total.published - this.reported.published;
    if (count > 0) {
      this.log.info(`published ${count} messages in the last ${Math.round((now - this.reported.at) / 1000)} s`, {
        count,
        perSecond: Math.round(this.rate.perSecond() * 10) / 10,
      });
    }
    this.reported = { at: now, published: this.total.published };
  }

  private logPublished(rows: readonly OutboxRow[]): void {
    if (rows.length === 0) return;
    const perStream = new Map<string, number>();
    for (const row of rows) perStream.set(row.streamName, (perStream.get(row.streamName) ?? 0) + 1);
    for (const [stream, count] of perStream) this.log.debug(`published ${count} messages to stream ${stream}`, { stream, count });
  }

  private async recordPublished(published: Unsettled, result: TickResult): Promise<void> {
    const ids = published.rows.map((row) => row.id);
    const marked = await this.persist('record published messages', () => this.store.markPublished(this.workerId, ids), ids);
    this.locks.drop(ids);
    if (marked === null) {
      this.log.warn(`could not record ${ids.length} published messages; they will be published again once their lock expires`, { count: ids.length });
      return;
    }
    this.countPublished(ids.length, marked, result);
  }

  /** `marked` of `sent` published rows were recorded; the rest had been taken over (lost locks). */
  private countPublished(sent: number, marked: number, result: TickResult): void {
    result.published += marked;
    result.lostLocks += sent - marked;
    this.total.published += marked;
    this.rate.add(marked);
    this.noteLostLocks(sent - marked, 'recording them as published');
  }

  private async recordFailed(outcome: PublishOutcome, result: TickResult): Promise<void> {
    if (outcome.failed.length === 0) return;
    const now = Date.now();
    const planned = planFailures(outcome.failed, this.config.retry, now, this.random);
    const ids = planned.map((p) => p.row.id);
    const updated = await this.persist(
      'record failed messages',
      () =>
        this.store.markFailed(
          this.workerId,
          planned.map((p) => p.update),
        ),
      ids,
    );
    this.locks.drop(ids);
    if (updated === null) return;
    // Only the rows this worker still held were recorded; the others belong to their new holder.
    const recorded = new Set(updated);
    const kept = planned.filter((p) => recorded.has(p.row.id));
    result.lostLocks += planned.length - kept.length;
    this.noteLostLocks(planned.length - kept.length, 'recording a failure');
    const abandoned = kept.filter((p) => p.reason !== null);
    // Only on the domain's own broker: external consumers are not protean subscriptions.
    if (abandoned.length && this.targetBroker === this.config.broker) {
      await publishPositionMarkers(
        this.broker,
        abandoned.map((p) => ({ row: p.row, error: p.update.error })),
        this.log,
        this.partitions,
      );
    }
    for (const { row, update, attempt, delayMs, reason } of kept) {
      const fields = {
        messageId: row.messageId,
        messageType: row.messageType,
        stream: row.streamName,
        attempt,
        maxAttempts: row.maxRetries,
        error: update.error,
      };
      if (reason !== null) {
        result.abandoned += 1;
        this.total.abandoned += 1;
        if (reason === 'max_total_seconds') this.total.abandonedPastMaxTotalSeconds += 1;
        const why = reason === 'max_attempts' ? '' : `: outbox.retry.max_total_seconds (${this.config.retry.max_total_seconds}) passed`;
        this.log.warn(`message abandoned after ${attempt} attempts${why}`, { ...fields, reason, partitionKey: row.partitionKey });
      } else {
        result.failed += 1;
        this.total.failed += 1;
        this.log.warn(`publish failed (attempt ${attempt} of ${row.maxRetries}); retrying in ${Math.round(delayMs)} ms`, {
          ...fields,
          retryInMs: Math.round(delayMs),
        });
      }
    }
    this.alerts.raise(abandoned.map((p) => abandonedMessage(p, now)));
  }

  private async releaseUnsent(outcome: PublishOutcome, result: TickResult): Promise<void> {
    if (outcome.unsent.length === 0) return;
    const ids = outcome.unsent.map((row) => row.id);
    const released = await this.persist('release unsent messages', () => this.store.release(this.workerId, ids), ids);
    this.locks.drop(ids);
    if (released === null) return;
    result.released = released;
    this.total.released += released;
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

  private noteLostLocks(count: number, doing: string): void {
    if (count <= 0) return;
    this.total.lostLocks += count;
    this.log.info(`${count} rows were taken over by another worker before ${doing} (lock expired); not counted as attempts`, { count });
  }

  private brokerDown(error: Error, released: number): void {
    if (this.currentState !== 'running') return;
    this.currentState = 'broker-unavailable';
    this.probeBackoff.reset();
    this.log.warn('broker unreachable; pausing the outbox processor and probing (no attempts are consumed)', { error: error.message, released });
  }

  private async probeBroker(): Promise<void> {
    const since = Date.now();
    let probes = 0;
    while (!this.stopping) {
      await this.stopSignal.sleep(this.probeBackoff.next());
      if (this.stopping) return;
      probes += 1;
      const reachable = await this.broker.ping().catch(() => false);
      if (reachable) {
        this.currentState = 'running';
        this.log.info('broker reachable again; resuming', { pausedMs: Date.now() - since, probes });
        return;
      }
    }
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
    const { published_retention_hours: publishedHours, abandoned_retention_hours: abandonedHours } = this.config.cleanup;
    const now = Date.now();
    try {
      const removed = await this.store.cleanup({
        publishedBefore: new Date(now - publishedHours * 3_600_000),
        abandonedBefore: new Date(now - abandonedHours * 3_600_000),
        batchSize: this.cleanupBatchSize,
      });
      this.total.cleanedPublished += removed.published;
      this.total.cleanedAbandoned += removed.abandoned;
      const line = `outbox cleanup removed ${removed.published} published and ${removed.abandoned} abandoned rows`;
      const fields = {
        published: removed.published,
        abandoned: removed.abandoned,
        publishedRetentionHours: publishedHours,
        abandonedRetentionHours: abandonedHours,
      };
      if (removed.published + removed.abandoned > 0) this.log.info(line, fields);
      else this.log.debug(line, fields);
    } catch (error) {
      this.log.warn('outbox cleanup failed; it runs again at the next interval', { error: message(error) });
    }
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
