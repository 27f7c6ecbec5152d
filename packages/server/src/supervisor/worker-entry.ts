/**
 * Runs one Engine as a process: standalone (`--workers 1`) or as a supervised worker. It wires
 * signals to a graceful stop, reports readiness and health to the supervisor over IPC, stops
 * when the supervisor disappears, and in test mode stops once everything is drained.
 */
import { flushTracing, type Logger } from '@protean-ts/core';
import type { HealthReport } from '../health/health-report.js';
import { installShutdown } from '../shutdown.js';
import type { DrainResult } from '../engine/drain-monitor.js';
import { currentProcessMetrics } from '../metrics/process-meter-provider.js';
import { portableScopeMetrics } from '../metrics/worker-metrics-merge.js';
import { isMetricsRequest, type WorkerMessage } from './worker-messages.js';

/**
 * How often a supervised worker sends its health report: the supervisor's /readyz answers from
 * the latest one, so this bounds how late it follows a service going or coming back.
 */
const REPORT_INTERVAL_MS = 500;

/** The part of the Engine a process runner needs. */
export interface RunnableEngine {
  start(): Promise<void>;
  stop(): Promise<void>;
  startedNames(): string[];
  health(): Promise<HealthReport>;
  waitUntilDrained(timeoutMs: number): Promise<DrainResult>;
}

export interface RunWorkerOptions {
  engine: RunnableEngine;
  /** 1..N under a supervisor, null for a single process. */
  workerId: number | null;
  graceMs: number;
  testMode: boolean;
  testModeTimeoutMs: number;
  logger: Logger;
  /** How often a supervised worker sends its health report. */
  reportIntervalMs?: number;
  /** Ends the process when shutdown overruns the grace period; `process.exit` by default. */
  forceExit?: (code: number) => void;
}

/**
 * Starts the engine and resolves with the exit code once it stopped: after a signal, the
 * supervisor leaving, a failed start, or (test mode) the drain finishing or timing out.
 */
export async function runWorker(options: RunWorkerOptions): Promise<number> {
  const { engine, workerId, logger } = options;
  const supervised = workerId !== null && typeof process.send === 'function';
  let exitCode = 0;
  let stopping = false;
  let reportTimer: NodeJS.Timeout | undefined;

  // Ctrl-C reaches the whole process group; a supervised worker waits for the supervisor's
  // SIGTERM instead of being stopped twice.
  const ignoreInterrupt = () => undefined;
  if (supervised) process.on('SIGINT', ignoreInterrupt);
  const onRejection = (reason: unknown) => {
    // A stray promise in user code must not take every subscription of this process down.
    logger.error('unhandled promise rejection (kept running)', { error: reason });
  };
  const onException = (err: unknown) => {
    logger.error('uncaught exception; stopping this process', { error: err });
    exitCode = 1;
    void shutdown.trigger('uncaught exception');
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);

  const shutdown = installShutdown({
    graceMs: options.graceMs,
    logger,
    signals: supervised ? ['SIGTERM'] : ['SIGINT', 'SIGTERM'],
    ...(options.forceExit ? { forceExit: options.forceExit } : {}),
    shutdown: async () => {
      stopping = true;
      clearInterval(reportTimer);
      await engine.stop();
      // Spans a registered OpenTelemetry SDK still buffers would die with the process.
      await flushTracing().catch((error: unknown) => logger.warn('flushing traces failed', { error }));
      return exitCode;
    },
  });

  const send = (message: WorkerMessage) => {
    if (process.connected) process.send!(message);
  };
  if (supervised) {
    // Reports start before the engine does: while it waits for databases and brokers, the
    // supervisor's /readyz shows which ones this worker is missing.
    let reporting = false;
    const report = async () => {
      // A check hanging on a dead service must not pile up reports behind it.
      if (reporting) return;
      reporting = true;
      try {
        send({ type: 'protean:health', workerId: workerId!, report: await engine.health().catch(failedReport) });
      } finally {
        reporting = false;
      }
    };
    void report();
    reportTimer = setInterval(() => void report(), options.reportIntervalMs ?? REPORT_INTERVAL_MS);
    reportTimer.unref();
    process.once('disconnect', () => void shutdown.trigger('supervisor went away'));
    process.on('message', onMessage);
  }

  // onMetricsRequest catches what collecting can throw; send() failing means the supervisor is gone.
  function onMessage(message: unknown): void {
    void onMetricsRequest(message).catch(() => undefined);
  }

  async function onMetricsRequest(message: unknown): Promise<void> {
    if (!isMetricsRequest(message)) return;
    const metrics = currentProcessMetrics();
    const answer = { type: 'protean:metrics' as const, workerId: workerId!, requestId: message.requestId };
    if (!metrics) return send({ ...answer, scopeMetrics: null });
    try {
      const { resourceMetrics, errors } = await metrics.collect();
      send({ ...answer, scopeMetrics: portableScopeMetrics(resourceMetrics.scopeMetrics), ...(errors.length ? { error: String(errors[0]) } : {}) });
    } catch (err) {
      send({ ...answer, scopeMetrics: null, error: err instanceof Error ? err.message : String(err) });
    }
  }

  try {
    await engine.start();
  } catch (err) {
    logger.error('engine failed to start', { error: err });
    exitCode = 1;
    void shutdown.trigger('start failed');
  }

  // A signal while the engine was still starting (waiting for services) ends start early: not ready.
  const started = exitCode === 0 && !stopping;
  if (started && supervised) send({ type: 'protean:ready', workerId: workerId!, started: engine.startedNames() });
  if (started && options.testMode) void finishWhenDrained();

  async function finishWhenDrained(): Promise<void> {
    const result = await engine.waitUntilDrained(options.testModeTimeoutMs);
    if (result.drained) {
      logger.info('test mode: every outbox and stream is drained', { checks: result.checks });
    } else {
      exitCode = 1;
      logger.error('test mode: still busy when the timeout passed', {
        timeoutSeconds: options.testModeTimeoutMs / 1000,
        busy: result.busy,
        hint: 'raise --test-mode-timeout, or look at the handler errors above',
      });
    }
    await shutdown.trigger(result.drained ? 'test mode: drained' : 'test mode: timed out');
  }

  const code = await shutdown.exited;
  process.off('SIGINT', ignoreInterrupt);
  process.off('message', onMessage);
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  return code;
}

function failedReport(err: unknown): HealthReport {
  return { ready: false, checks: [{ name: 'engine', kind: 'engine', ok: false, detail: err instanceof Error ? err.message : String(err) }] };
}
