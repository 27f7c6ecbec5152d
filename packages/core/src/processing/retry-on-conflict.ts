/**
 * Optimistic-concurrency conflicts are transient: two handlers changed one aggregate at once and
 * the loser only has to reload and run again. Handler runs (subscriptions and sync dispatch)
 * go through here, so a busy aggregate never costs a message its retries or its effect.
 */
import { ExpectedVersionError } from '../errors/expected-version.error.js';

export interface ConflictRetryPolicy {
  /** Runs in all, the first included. */
  attempts: number;
  /** Upper bound of the first pause; doubles per conflict, capped at maxDelayMs (full jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_CONFLICT_RETRY: ConflictRetryPolicy = { attempts: 10, baseDelayMs: 5, maxDelayMs: 250 };

export function isConcurrencyConflict(error: unknown): error is ExpectedVersionError {
  return error instanceof ExpectedVersionError;
}

/**
 * Runs `work` (which must open its own unit of work, so each run reloads what it changes) and
 * runs it again after a jittered pause when it loses a version race. Other errors, and the
 * last conflict, are thrown as they are.
 */
export async function retryOnConflict<T>(
  work: () => Promise<T>,
  onConflict: (attempt: number, error: ExpectedVersionError) => void = () => {},
  policy: ConflictRetryPolicy = DEFAULT_CONFLICT_RETRY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isConcurrencyConflict(error) || attempt >= policy.attempts) throw error;
      onConflict(attempt, error);
      // Full jitter: racing handlers spread out instead of colliding again in step.
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}
