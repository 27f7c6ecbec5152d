/**
 * Flow control of one subscription in one process, wrapped around its handler call: debouncing
 * first (a superseded message never runs), then the circuit breaker, the concurrency permit and
 * the rate-limit slot, then the handler; its result tells the circuit breaker how the dependency
 * is doing. Partition loops of one subscription share one gate (see flowGateFor).
 */
import { isPermanentError, type HandleOutcome, type Logger, type ReceivedMessage } from '@protean-ts/core';
import type { HandleRequest } from '../message-runner.js';
import { type CircuitBreaker, type CircuitStatus } from './circuit-breaker.js';
import { type ConcurrencyCap, type ConcurrencyCapStatus, type Permit } from './concurrency-cap.js';
import { type Debouncer, type DebounceStatus } from './debouncer.js';
import { MessageHeld } from './message-held.js';
import { type RateLimiter, type RateLimitStatus } from './rate-limiter.js';

export type Handle = (message: ReceivedMessage, request: HandleRequest) => Promise<HandleOutcome>;

/** What `status` shows of a subscription's flow control: only the features it has on. */
export interface FlowStatus {
  circuit?: CircuitStatus;
  rateLimit?: RateLimitStatus;
  concurrencyCap?: ConcurrencyCapStatus;
  debounce?: DebounceStatus;
}

export interface FlowGateParts {
  circuit: CircuitBreaker | null;
  rate: RateLimiter | null;
  cap: ConcurrencyCap | null;
  debouncer: Debouncer | null;
  log: Logger;
}

export class FlowGate {
  constructor(private readonly parts: FlowGateParts) {}

  /** A message entered the read-ahead (debouncing learns of later messages of a key here). */
  seen(message: ReceivedMessage): void {
    this.parts.debouncer?.seen(message);
  }

  /** `runsHandlerFor`: messages of other types pass straight through (the handler does not run for them). */
  wrap(handle: Handle, isPermanent?: (error: unknown) => boolean, runsHandlerFor?: (message: ReceivedMessage) => boolean): Handle {
    const { circuit, rate, cap, debouncer } = this.parts;
    return async (message, request) => {
      if (runsHandlerFor && !runsHandlerFor(message)) return handle(message, request);
      if (debouncer && debouncer.check(message) === 'superseded') {
        this.parts.log.debug('message superseded by a later one of its key within the debounce window; acked without running the handler', {
          brokerMessageId: message.id,
        });
        return 'skipped';
      }
      const { probe } = circuit?.admit() ?? { probe: false };
      let permit: Permit | undefined;
      try {
        permit = await cap?.acquire(request.signal);
        await rate?.take(request.signal);
        const outcome = await handle(message, request);
        if (outcome === 'handled' || outcome === 'handled-late') circuit?.succeeded(probe);
        else if (probe) circuit?.probeUndecided();
        if (outcome !== 'early') debouncer?.done(message);
        return outcome;
      } catch (error) {
        if (error instanceof MessageHeld) {
          if (probe) circuit?.probeUndecided();
          throw error;
        }
        const permanent = isPermanentError(error) || (isPermanent?.(error) ?? false);
        if (circuit?.failed(error, probe, permanent)) throw new MessageHeld(circuit.heldForMs(), 'circuit open');
        throw error;
      } finally {
        await permit?.release();
      }
    };
  }

  status(): FlowStatus {
    const { circuit, rate, cap, debouncer } = this.parts;
    return {
      ...(circuit ? { circuit: circuit.status() } : {}),
      ...(rate ? { rateLimit: rate.status() } : {}),
      ...(cap ? { concurrencyCap: cap.status() } : {}),
      ...(debouncer ? { debounce: debouncer.status() } : {}),
    };
  }
}
