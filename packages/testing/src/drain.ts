/**
 * Runs a domain's asynchronous side in the test's process: the server's Engine (outbox relay,
 * command and event handler subscriptions, process managers, projectors), as `protean-ts
 * server` does, started on the first `drain(domain)` and kept until `stopHandlers(domain)`.
 * `drain` resolves once every outbox and subscription has been empty for a few checks in a row,
 * i.e. every handler has run on everything committed so far, including what the handlers
 * themselves committed. Commands and timeouts due later do not count until they are due.
 */
import type { Domain } from '@protean-ts/core';
import { Engine } from '@protean-ts/server';

export interface DrainOptions {
  /** Give up (with an error naming what is still busy) after this long. Default 30 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Quick polling: tests wait for the end of a flow, not for a production server's pace. */
const TEST_DRAIN = { intervalMs: 10, quietChecks: 3 };

const engines = new WeakMap<Domain, Engine>();

/** Starts the in-process handlers of `domain` (initialized), unless they run already. */
export async function startHandlers(domain: Domain): Promise<void> {
  if (engines.has(domain)) return;
  if (!domain.runtime.isReady) throw new Error(`startHandlers(${domain.name}): initialize the domain first (await domain.init(…))`);
  const engine = new Engine(domain, { health: false, drain: TEST_DRAIN });
  engines.set(domain, engine);
  try {
    await engine.start();
  } catch (error) {
    engines.delete(domain);
    throw error;
  }
}

/** Runs the domain's handlers until nothing is left to handle. */
export async function drain(domain: Domain, options: DrainOptions = {}): Promise<void> {
  await startHandlers(domain);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const result = await engines.get(domain)!.waitUntilDrained(timeoutMs);
  if (!result.drained) throw new Error(`drain(${domain.name}): still busy after ${timeoutMs} ms: ${result.busy.join('; ')}`);
}

/**
 * Stops the in-process handlers (letting the work in flight finish) and closes the domain, as the
 * Engine owns its connections from then on. Without handlers running it only closes the domain.
 */
export async function stopHandlers(domain: Domain): Promise<void> {
  const engine = engines.get(domain);
  engines.delete(domain);
  if (engine) await engine.stop();
  else await domain.close();
}
