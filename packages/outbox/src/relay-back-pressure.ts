/**
 * Back-pressure of one relay (`outbox.max_consumer_lag`): while a consumer group of a stream the
 * relay publishes to has more messages not finished than the bound, the relay publishes nothing
 * to that broker and looks again every `outbox.lag_check_interval`. It resumes once every group is
 * down to half the bound (as the read-ahead refills at half), so a group hovering at the bound does
 * not switch it on and off at every check. Nothing is lost: the rows stay pending in the outbox.
 */
import type { Broker, Logger, OutboxConfig, OutboxRow } from '@protean-ts/core';
import { OutboxConfigError } from './outbox-config.error.js';
import { rowStream } from './publish-claimed.js';
import type { Waker } from './waker.js';

/** A hold is logged at WARN (and its resumption at INFO) at most once in this long; the others at DEBUG. */
const LOG_EVERY_MS = 60_000;

/** Streams remembered for the check (the most recently published to); each costs a probe per check. */
export const MAX_CHECKED_STREAMS = 1000;

/** The group furthest behind among the streams checked. */
export interface LaggingGroup {
  stream: string;
  group: string;
  behind: number;
}

export interface RelayBackPressureStatus {
  maxConsumerLag: number;
  /** True while the relay holds back. */
  heldBack: boolean;
  /** The group furthest behind at the last check; null before it, or when no group reads the streams. */
  worst: LaggingGroup | null;
  /** ISO time of the last check that answered. */
  checkedAt: string | null;
  /** Times the relay started holding back, and how long it held back in all (ms), since it started. */
  heldBackTimes: number;
  heldBackMs: number;
  /** Why the last check failed (the relay keeps its previous decision meanwhile). */
  checkError?: string;
}

export class RelayBackPressure {
  private readonly maxLag: number;
  private readonly checkMs: number;
  /** Stream → when last published to; insertion order is recency order. */
  private readonly streams = new Map<string, number>();
  private nextCheckAt = 0;
  /** Published since the last check, against the room the last check saw below the bound. */
  private publishedSinceCheck = 0;
  private room: number;
  private holding = false;
  private heldSince = 0;
  private worst: LaggingGroup | null = null;
  private checkedAt: string | null = null;
  private heldBackTimes = 0;
  private heldBackMs = 0;
  private checkError: string | undefined;
  private loggedAt = -Infinity;
  /** Whether the current hold was logged loud, so its resumption is too. */
  private loudHold = false;

  constructor(
    private readonly broker: Broker,
    config: Pick<OutboxConfig, 'max_consumer_lag' | 'lag_check_interval'>,
    private readonly log: Logger,
  ) {
    this.maxLag = config.max_consumer_lag ?? 0;
    this.checkMs = (config.lag_check_interval ?? 1) * 1000;
    this.room = this.maxLag;
    if (this.maxLag > 0 && (!broker.has('CONSUMER_LAG') || typeof broker.consumerLag !== 'function')) {
      throw new OutboxConfigError(
        'max_consumer_lag',
        `is ${this.maxLag}, but broker "${broker.name}" (provider ${broker.provider}) cannot report its consumers' lag (capability CONSUMER_LAG); set it to 0 or relay to a redis, rabbitmq or nats broker`,
      );
    }
  }

  get enabled(): boolean {
    return this.maxLag > 0;
  }

  /** Remembers the streams a batch went to, so the next checks look at their groups. */
  published(rows: readonly OutboxRow[], partitions: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    this.publishedSinceCheck += rows.length;
    for (const row of rows) {
      const stream = rowStream(row, partitions);
      this.streams.delete(stream);
      this.streams.set(stream, now);
    }
    for (const oldest of this.streams.keys()) {
      if (this.streams.size <= MAX_CHECKED_STREAMS) break;
      this.streams.delete(oldest);
    }
  }

  /**
   * A check is due every `lag_check_interval`, and as soon as the relay has published as many
   * messages as the last check saw room for below the bound: so one relay never lets a group pass
   * `max_consumer_lag` by more than the batch in flight.
   */
  due(): boolean {
    return this.enabled && (Date.now() >= this.nextCheckAt || this.publishedSinceCheck >= this.room);
  }

  /**
   * Checks the lag when a check is due; while a group is past the bound, sleeps one check
   * interval (cut short by `stop`) and answers true: the caller publishes nothing this turn.
   */
  async holdsBack(stop: Waker): Promise<boolean> {
    if (!this.enabled) return false;
    if (this.due()) await this.check();
    if (!this.holding) return false;
    await stop.sleep(Math.max(0, this.nextCheckAt - Date.now()));
    return true;
  }

  status(): RelayBackPressureStatus | null {
    if (!this.enabled) return null;
    const heldBackMs = this.heldBackMs + (this.holding ? Date.now() - this.heldSince : 0);
    return {
      maxConsumerLag: this.maxLag,
      heldBack: this.holding,
      worst: this.worst,
      checkedAt: this.checkedAt,
      heldBackTimes: this.heldBackTimes,
      heldBackMs,
      ...(this.checkError === undefined ? {} : { checkError: this.checkError }),
    };
  }

  /** True when nothing was logged at WARN / INFO for a while (and notes that this is). */
  private loud(): boolean {
    if (Date.now() - this.loggedAt < LOG_EVERY_MS) return false;
    this.loggedAt = Date.now();
    return true;
  }

  private async check(): Promise<void> {
    this.nextCheckAt = Date.now() + this.checkMs;
    let worst: LaggingGroup | null = null;
    try {
      for (const stream of this.streams.keys()) {
        for (const { group, behind } of await this.broker.consumerLag!(stream)) {
          if (!worst || behind > worst.behind) worst = { stream, group, behind };
        }
      }
    } catch (error) {
      // Not a tight loop on the room either: the next try waits for the interval.
      this.publishedSinceCheck = 0;
      const text = error instanceof Error ? error.message : String(error);
      if (this.checkError === undefined) this.log.warn('cannot read the consumer lag; the relay keeps its last back-pressure decision', { error: text });
      this.checkError = text;
      return;
    }
    this.checkError = undefined;
    this.publishedSinceCheck = 0;
    this.room = Math.max(0, this.maxLag - (worst?.behind ?? 0));
    this.worst = worst;
    this.checkedAt = new Date().toISOString();
    const behind = worst?.behind ?? 0;
    if (!this.holding && behind > this.maxLag) {
      this.holding = true;
      this.heldSince = Date.now();
      this.heldBackTimes += 1;
      const text = `relay held back: group "${worst!.group}" of stream "${worst!.stream}" is ${behind} messages behind (max_consumer_lag ${this.maxLag}); rows stay pending`;
      this.loudHold = this.loud();
      if (this.loudHold) this.log.warn(text, { ...worst, heldBackTimes: this.heldBackTimes });
      else this.log.debug(text, { ...worst });
    } else if (this.holding && behind <= this.maxLag / 2) {
      this.holding = false;
      const heldMs = Date.now() - this.heldSince;
      this.heldBackMs += heldMs;
      const text = 'relay resumed: every consumer group is down to half of max_consumer_lag';
      const fields = { heldMs, behind, maxConsumerLag: this.maxLag };
      if (this.loudHold) this.log.info(text, fields);
      else this.log.debug(text, fields);
    }
  }
}
