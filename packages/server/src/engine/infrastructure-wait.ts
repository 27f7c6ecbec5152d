/**
 * At start the Engine waits for its databases and brokers instead of exiting: a Redis or
 * PostgreSQL that comes up after the workers (a deployment starting all at once) is retried with
 * jittered back-off while /readyz says which service is missing. Errors that waiting cannot fix
 * (credentials, a database that does not exist) end the wait at once, as does the optional
 * `[server] startup_timeout_seconds`.
 */
import { isRetryableConnectError, maskUri, type Domain, type Logger } from '@protean-ts/core';
import type { HealthCheck } from '../health/health-report.js';
import { abortableSleep, backoffDelay } from '../subscriptions/abortable-sleep.js';

export class InfrastructureUnavailableError extends Error {
  constructor(
    readonly problems: readonly string[],
    /** `startup_timeout_seconds`: how long the server waited before giving up. */
    readonly waitedSeconds: number,
  ) {
    super(
      `The server cannot start: still not reachable after ${waitedSeconds} s ([server] startup_timeout_seconds):\n` +
        `${problems.map((p) => `  - ${p}`).join('\n')}\n` +
        'Start those services or fix their URIs; startup_timeout_seconds = 0 waits for them forever.',
    );
    this.name = 'InfrastructureUnavailableError';
  }
}

export interface InfrastructureWaitOptions {
  /** Aborting ends the wait at once (a shutdown signal); `run()` then resolves. */
  signal: AbortSignal;
  /** Give up after this long with InfrastructureUnavailableError; 0 waits forever. */
  timeoutMs: number;
  logger: Logger;
  /** Retry delays: from `initialDelayMs`, doubling per attempt up to `maxDelayMs`, each jittered down by up to half. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A WARN for the first failed attempt of a service, then for every this many attempts. */
  warnEvery?: number;
}

interface Target {
  kind: 'database' | 'broker';
  name: string;
  provider: string;
  /** Masked; null for in-process providers. */
  uri: string | null;
  connect: () => Promise<void>;
  connected: boolean;
  attempts: number;
  lastError: string | null;
}

export class InfrastructureWait {
  private readonly targets: Target[];
  private readonly startedAt = Date.now();

  constructor(
    domain: Domain,
    private readonly options: InfrastructureWaitOptions,
  ) {
    const { config } = domain;
    const masked = (uri: string | undefined) => (uri ? maskUri(uri) : null);
    this.targets = [
      ...[...domain.providers].map(([name, provider]): Target => ({
        kind: 'database',
        name,
        provider: provider.kind,
        uri: masked(config.databases[name]?.database_uri),
        connect: () => provider.connect(),
        connected: false,
        attempts: 0,
        lastError: null,
      })),
      ...[...domain.brokers].map(([name, broker]): Target => ({
        kind: 'broker',
        name,
        provider: broker.provider,
        uri: masked(config.brokers[name]?.uri),
        connect: () => broker.connect(),
        connected: false,
        attempts: 0,
        lastError: null,
      })),
    ];
  }

  /** One check per database and broker: ok once connected, else why not (for /readyz while starting). */
  checks(): HealthCheck[] {
    return this.targets.map((t) => ({
      name: `${t.kind}:${t.name}`,
      kind: t.kind,
      ok: t.connected,
      detail: t.connected ? t.provider : t.lastError ? `not reachable (attempt ${t.attempts}): ${t.lastError}` : 'connecting',
    }));
  }

  /** Resolves once every service is connected, or at once when the signal aborts; rejects on a permanent error or the timeout. */
  async run(): Promise<void> {
    const { signal, timeoutMs } = this.options;
    for (let round = 1; ; round++) {
      const pending = this.targets.filter((t) => !t.connected);
      await Promise.all(pending.map((t) => this.attempt(t)));
      if (signal.aborted) return;
      const waiting = pending.filter((t) => !t.connected);
      if (waiting.length === 0) return;
      const remainingMs = timeoutMs > 0 ? this.startedAt + timeoutMs - Date.now() : Infinity;
      if (remainingMs <= 0) throw this.timedOut(waiting);
      const base = backoffDelay(round, this.options.initialDelayMs ?? 500, this.options.maxDelayMs ?? 10_000);
      // Jitter: workers that started together do not knock on the service at the same moment.
      const delayMs = Math.min(remainingMs, Math.round(base / 2 + (Math.random() * base) / 2));
      for (const target of waiting) this.warn(target, delayMs);
      await abortableSleep(delayMs, signal);
      if (signal.aborted) return;
    }
  }

  private async attempt(target: Target): Promise<void> {
    target.attempts++;
    try {
      await untilAborted(target.connect(), this.options.signal);
    } catch (error) {
      // Credentials, a missing database, bad settings: no amount of waiting helps.
      if (!isRetryableConnectError(error)) throw error;
      target.lastError = error instanceof Error ? error.message : String(error);
      return;
    }
    if (this.options.signal.aborted) return;
    target.connected = true;
    this.options.logger.info(`${target.kind} connected`, {
      [target.kind]: target.name,
      provider: target.provider,
      ...(target.uri ? { uri: target.uri } : {}),
      attempts: target.attempts,
      waitedMs: Date.now() - this.startedAt,
    });
  }

  private warn(target: Target, nextRetryInMs: number): void {
    const every = this.options.warnEvery ?? 10;
    if (target.attempts !== 1 && target.attempts % every !== 0) return;
    this.options.logger.warn(`waiting for ${target.kind}`, {
      [target.kind]: target.name,
      provider: target.provider,
      ...(target.uri ? { uri: target.uri } : {}),
      attempt: target.attempts,
      nextRetryInMs,
      error: target.lastError,
    });
  }

  private timedOut(waiting: Target[]): InfrastructureUnavailableError {
    const problems = waiting.map(
      (t) => `[${t.kind === 'database' ? 'databases' : 'brokers'}.${t.name}] (${t.provider}${t.uri ? ` at ${t.uri}` : ''}): ${t.lastError}`,
    );
    // The setting, not the clock: the last attempt may have run past the deadline (a slow connect
    // under load), and the message names the setting that decided.
    return new InfrastructureUnavailableError(problems.sort(), this.options.timeoutMs / 1000);
  }
}

/** `work`, or nothing as soon as `signal` aborts: a connect hanging on a dead host must not hold up a shutdown. */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
