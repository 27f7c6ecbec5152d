/**
 * Framework-agnostic assertions: each throws node's `AssertionError` (with `actual`, `expected`
 * and the diff every runner prints: vitest, node:test, jest, mocha), so the kit needs no
 * particular test framework.
 */
import assert, { AssertionError } from 'node:assert/strict';
import type { BaseEvent } from '@protean-ts/core';
import { actualViewsFor, expectedViewOf, type ExpectedEvent } from './event-view.js';

export type ErrorClass = abstract new (...args: never[]) => Error;

/** Expected refusal: its class, and optionally its message (exact, or a pattern). */
export interface ExpectedError {
  error: ErrorClass;
  message?: string | RegExp;
}

/** Asserts `actual` are exactly `expected`, in order (type and data; classes check the type only). */
export function assertEvents(actual: readonly BaseEvent[], expected: readonly ExpectedEvent[], what = 'events'): void {
  assert.deepStrictEqual(actualViewsFor(actual, expected), expected.map(expectedViewOf), `the ${what} differ from the expected ones (type and data, in order)`);
}

/** Asserts `error` is an instance of the expected class (and has the message, when given). */
export function assertError(error: unknown, expected: ExpectedError): void {
  const wanted = expected.error.name;
  if (error === undefined) {
    throw new AssertionError({ message: `expected ${wanted} to be thrown, but nothing was thrown`, actual: undefined, expected: wanted, operator: 'throws' });
  }
  if (!(error instanceof expected.error)) {
    const got = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new AssertionError({ message: `expected ${wanted} to be thrown, but got ${got}`, actual: error, expected: wanted, operator: 'throws' });
  }
  const { message } = expected;
  if (message === undefined) return;
  if (typeof message === 'string') assert.equal(error.message, message, `${wanted} was thrown with another message`);
  else assert.match(error.message, message, `${wanted} was thrown with a message not matching ${message}`);
}

/** Runs `work` and asserts it throws (or rejects with) the expected error; returns that error. */
export async function assertRejects<E extends Error>(
  work: Promise<unknown> | (() => unknown),
  error: abstract new (...args: never[]) => E,
  message?: string | RegExp,
): Promise<E> {
  let thrown: unknown;
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (caught) {
    thrown = caught;
  }
  assertError(thrown, { error, ...(message !== undefined ? { message } : {}) });
  return thrown as E;
}
