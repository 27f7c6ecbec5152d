/**
 * Runs a domain's asynchronous side in the test's process: the server's Engine (outbox relay,
 * command and event handler subscriptions, process managers, projectors), as `protean-ts
 * server` does, started on the first `drain(domain)` and kept until `stopHandlers(domain)`.
 * `drain` resolves once every outbox and subscription has been empty for a few checks in a row,
 * i.e. every handler has run on everything committed so far, including what the handlers
 * themselves committed. Commands and timeouts due later do not count until they are due, unless
 * `dueWithin` brings them forward or the domain's clock (a `ManualClock`) was moved past them.
 */
import { parseDuration, systemClock, type Domain } from '@protean-ts/core';
import { Engine } from '@protean-ts/server';

export interface DrainOptions {
  /** Give up (with an error naming what is still busy) after this long. Default 30 s. */
  timeoutMs?: number;
  /**
   * Timeouts and commands scheduled to be due within this long from the call (`'15m'`, `'2h'`, or
   * milliseconds) are made due at once, then drained: a process manager's 15-minute timeout is
   * tested without waiting 15 minutes. Taken once, when drain is called; what the handlers
   * schedule meanwhile waits for its own time (or the next drain).
   */
  dueWithin?: number | string;
}

/** How many rows one promotion takes; repeated until fewer come back. */
const PROMOTION_BATCH = 1000;

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
  const window = options.dueWithin === undefined ? undefined : parseDuration(options.dueWithin, 'drain(…, { dueWithin })');
  // Due by the domain's clock: a test that moved it (ManualClock) sees what it made due fire now.
  const dueBy = window === undefined && domain.clock === systemClock ? undefined : new Date(domain.clock.now() + (window ?? 0));
  await startHandlers(domain);
  if (dueBy) await bringForward(domain, dueBy);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const result = await engines.get(domain)!.waitUntilDrained(timeoutMs);
  if (!result.drained) throw new Error(`drain(${domain.name}): still busy after ${timeoutMs} ms: ${result.busy.join('; ')}`);
}

/** Makes every scheduled outbox row due by `dueBy` pending now, wherever a relay takes rows from (as createOutboxProcessors). */
async function bringForward(domain: Domain, dueBy: Date): Promise<void> {
  const { broker: main, external_brokers: external } = domain.config.outbox;
  for (const provider of domain.providers.values()) {
    if (!provider.managed) continue;
    for (const broker of new Set([main, ...external])) {
      while ((await provider.outbox.promoteDue(broker, PROMOTION_BATCH, { dueBy })).promoted === PROMOTION_BATCH);
    }
  }
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
