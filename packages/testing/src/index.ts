/**
 * @protean-ts/testing: helpers for testing a protean-ts domain with any test runner (vitest,
 * node:test, jest…): assertions throw node's AssertionError with a diff.
 */
export { given, Scenario, WhenStep, type WhenOutcome, type GivenOptions } from './aggregate-scenario.js';
export { captureEvents, type CapturedEvents } from './capture-events.js';
export { drain, startHandlers, stopHandlers, type DrainOptions } from './drain.js';
export { ManualClock } from './manual-clock.js';
export { isolatedInfrastructure, type IsolatedInfrastructure, type IsolatedInfrastructureOptions } from './isolated-infrastructure.js';
export { assertEvents, assertError, assertRejects, type ErrorClass, type ExpectedError } from './assertions.js';
export type { ExpectedEvent } from './event-view.js';
export { createTemporaryDatabase, PostgresUnreachableError, type TemporaryDatabase, type TemporaryDatabaseOptions } from '@protean-ts/core/temporary-database';
