/**
 * The sender's and the handler's halves of command outcomes: the envelope extension that tells
 * a handler its sender waits for the outcome, how a handler's result or refusal is recorded,
 * and how the sender waits for it (polling the store with a growing pause, so it works across
 * processes on any database).
 */
import { CommandRefusedError } from '../errors/command-refused.error.js';
import { InvalidProcessOptionsError } from '../errors/invalid-process-options.error.js';
import { OutcomeTimeoutError } from '../errors/outcome-timeout.error.js';
import type { CommandOutcome, CommandOutcomeRecord, CommandOutcomeStore } from '../ports/command-outcome-store.js';
import { MAX_TIMER_MS } from '../config/config-schema.js';

/** Envelope extension set on a queued command whose outcome is recorded (`metadata.extensions`). */
export const OUTCOME_EXTENSION = 'protean_outcome';

/** How long a command whose idempotency key is held by a command still pending waits for it, unless `awaitOutcome` says otherwise. */
export const DEFAULT_REUSED_KEY_WAIT_MS = 30_000;

const MAX_IDEMPOTENCY_KEY_LENGTH = 200;
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 200;

export function checkedIdempotencyKey(key: unknown, command: string): string | null {
  if (key === undefined) return null;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new InvalidProcessOptionsError(
      `domain.process(${command}): idempotencyKey must be a non-empty string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${describe(key)}`,
    );
  }
  if (key.includes('\u0000')) {
    throw new InvalidProcessOptionsError(
      `domain.process(${command}): idempotencyKey must not contain a NUL character (\\u0000): PostgreSQL cannot store one in text; remove it or encode the key`,
    );
  }
  return key;
}

export function checkedTimeout(awaitOutcome: unknown, command: string): number | null {
  if (awaitOutcome === undefined) return null;
  const timeoutMs = (awaitOutcome as { timeoutMs?: unknown } | null)?.timeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
    throw new InvalidProcessOptionsError(
      `domain.process(${command}): awaitOutcome must be { timeoutMs } with a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${describe(awaitOutcome)}`,
    );
  }
  return timeoutMs;
}

/** A handler's result as it is stored: JSON data (undefined becomes null). */
export function succeeded(result: unknown, command: string): CommandOutcome {
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (error) {
    throw new TypeError(
      `The result of ${command}'s handler cannot be stored as its outcome: ${error instanceof Error ? error.message : String(error)}; return JSON data (an id, a plain object)`,
    );
  }
  return { status: 'succeeded', result: json === undefined ? null : JSON.parse(json) };
}

export function refused(error: unknown): CommandOutcome {
  const named = error instanceof Error ? error : new Error(String(error));
  return { status: 'refused', errorName: named.name || named.constructor.name, errorMessage: named.message };
}

/** The result of a completed record, CommandRefusedError for a refused one; undefined while pending. */
export function settle(record: CommandOutcomeRecord, command: string): { settled: true; result: unknown } | { settled: false } {
  if (record.status === 'succeeded') return { settled: true, result: record.result };
  if (record.status === 'refused') throw new CommandRefusedError(command, record.commandId, record.errorName ?? 'Error', record.errorMessage ?? '');
  return { settled: false };
}

/** Waits for the outcome of `commandId`: its result, CommandRefusedError, or OutcomeTimeoutError. */
export async function awaitOutcome(store: CommandOutcomeStore, command: string, commandId: string, timeoutMs: number): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const record = await store.get(commandId);
    if (record) {
      const outcome = settle(record, command);
      if (outcome.settled) return outcome.result;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new OutcomeTimeoutError(command, commandId, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    pause = Math.min(LONGEST_PAUSE_MS, Math.ceil(pause * 1.5));
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) + ` (${value.length} characters)`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
