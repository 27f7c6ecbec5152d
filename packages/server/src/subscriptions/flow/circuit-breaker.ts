/**
 * The circuit breaker of one subscription in one process. Closed, it counts failures of the
 * counted errors in a row (a success resets the count); at `threshold` it opens: no message runs
 * until `openMs` have passed, then one message probes (half-open) while the others keep waiting.
 * A probe that succeeds closes the circuit; one that fails opens it again for `openMs`.
 *
 * The failure that opens the circuit, and every counted failure while it is not closed (messages
 * that were running when it opened, a failed probe), is held instead of failing: the message
 * waits for the circuit and then starts over, so none uses up its retries or is dead-lettered
 * because a dependency is down.
 */
import type { Logger } from '@protean-ts/core';
import { MessageHeld } from './message-held.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitStatus {
  state: CircuitState;
  /** Counted failures in a row (closed), the count that opened it (open, half-open). */
  consecutiveFailures: number;
  /** Times the circuit opened since the process started (probes that failed included). */
  opened: number;
  /** When an open circuit lets its next probe through (epoch ms); null unless open. */
  probeAt: number | null;
  /** The error that last opened it: class name and message, first line. */
  lastError: string | null;
}

export interface CircuitBreakerOptions {
  subscription: string;
  threshold: number;
  openMs: number;
  /** Error class names that count (the error's own or one in its `cause` chain); empty: all. */
  errors: readonly string[];
  logger: Logger;
  /** Told of every change of state (to record it where other processes can read it). */
  onChange?: (status: CircuitStatus) => void;
}

/** How often a message waiting behind a running probe looks again. */
const PROBE_WAIT_MS = 100;

export class CircuitBreaker {
  private state: CircuitState = 'closed';
  private consecutive = 0;
  private opened = 0;
  private openUntil = 0;
  private probing = false;
  private lastError: string | null = null;

  constructor(private readonly options: CircuitBreakerOptions) {}

  /** Lets a message run, as the probe when half-open; throws MessageHeld while it may not. */
  admit(now = Date.now()): { probe: boolean } {
    if (this.state === 'closed') return { probe: false };
    if (this.state === 'open' && now < this.openUntil) throw new MessageHeld(this.openUntil - now + Math.random() * 50, 'circuit open');
    if (this.probing) throw new MessageHeld(PROBE_WAIT_MS, 'circuit half-open, a probe is running');
    this.state = 'half-open';
    this.probing = true;
    this.changed();
    this.options.logger.info('circuit half-open: one message probes the handler', { subscription: this.options.subscription });
    return { probe: true };
  }

  succeeded(probe: boolean): void {
    if (probe) this.probing = false;
    this.consecutive = 0;
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.changed();
    this.options.logger.info('circuit closed: the handler succeeds again', { subscription: this.options.subscription, opened: this.opened });
  }

  /**
   * Records a failure. True when the message is to be held (the error counts and the circuit is
   * now not closed); false when it fails as usual (retried, dead-lettered when out of retries).
   */
  failed(error: unknown, probe: boolean, permanent: boolean): boolean {
    if (probe) this.probing = false;
    if (permanent || !this.counts(error)) return false;
    if (this.state === 'closed') {
      this.consecutive += 1;
      if (this.consecutive < this.options.threshold) return false;
      this.open(error, 'failures in a row reached circuit_failure_threshold');
      return true;
    }
    if (probe) this.open(error, 'the probe failed');
    return true;
  }

  /** The probe ended without telling (a duplicate, an early message, the process stopping): the next message probes. */
  probeUndecided(): void {
    this.probing = false;
  }

  /** How long a message held by an open circuit waits before it looks again. */
  heldForMs(now = Date.now()): number {
    return this.state === 'open' ? Math.max(0, this.openUntil - now) + Math.random() * 50 : PROBE_WAIT_MS;
  }

  status(now = Date.now()): CircuitStatus {
    return {
      state: this.state === 'open' && now >= this.openUntil ? 'half-open' : this.state,
      consecutiveFailures: this.consecutive,
      opened: this.opened,
      probeAt: this.state === 'open' ? this.openUntil : null,
      lastError: this.lastError,
    };
  }

  private open(error: unknown, why: string): void {
    this.state = 'open';
    this.opened += 1;
    this.openUntil = Date.now() + this.options.openMs;
    this.lastError = describe(error);
    this.changed();
    this.options.logger.warn(`circuit open: ${why}; messages wait (not retried, not dead-lettered) until a probe succeeds`, {
      subscription: this.options.subscription,
      failuresInARow: this.consecutive,
      probeInMs: this.options.openMs,
      error: this.lastError,
    });
  }

  private changed(): void {
    this.options.onChange?.(this.status());
  }

  private counts(error: unknown): boolean {
    const { errors } = this.options;
    if (errors.length === 0) return true;
    for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
      if (errors.includes(e.name) || errors.includes(e.constructor.name)) return true;
    }
    return false;
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0]!.slice(0, 300);
}
