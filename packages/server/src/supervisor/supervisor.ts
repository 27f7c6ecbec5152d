/**
 * Runs N worker processes (each with its own Engine) and keeps them running: forks them with
 * `PROTEAN_WORKER_ID`, fans shutdown out as SIGTERM with a grace period before SIGKILL, restarts
 * a crashed worker with exponential backoff until the crash-loop limit, and answers health
 * probes for all of them from the reports workers send over IPC (and metrics scrapes, from the
 * metrics it asks every worker for).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { HealthServer } from '../health/health-server.js';
import { healthReport, type HealthCheck, type HealthReport } from '../health/health-report.js';
import { RestartPolicy, type RestartPolicyOptions } from './restart-policy.js';
import { isWorkerMessage, WORKER_ID_ENV } from './worker-messages.js';
import { WorkerMetricsScrape } from './worker-metrics-scrape.js';
import type { Logger } from '@protean-ts/core';

export interface SupervisorOptions {
  workers: number;
  /** The script every worker runs (normally the CLI's own entry) and its arguments. */
  modulePath: string;
  args: readonly string[];
  /** Node flags for the workers (loaders such as tsx); default this process's. */
  execArgv?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** How long workers get to finish after SIGTERM before SIGKILL. */
  graceMs: number;
  restart: RestartPolicyOptions;
  /** Where the supervisor answers health probes for every worker; null for none. */
  health: { host: string; port: number } | null;
  /** The path of the metrics endpoint beside the health endpoints; null for none. */
  metricsPath?: string | null;
  /** In test mode a worker's exit is final: it drained (0) or failed; nothing is restarted. */
  testMode: boolean;
  logger: Logger;
}

interface WorkerSlot {
  id: number;
  child: ChildProcess | null;
  startedAt: number;
  ready: boolean;
  report: HealthReport | null;
  reportAt: number;
  restartTimer: NodeJS.Timeout | null;
  /** Exit code once the worker is done for good (test mode, or after stop). */
  finalCode: number | null;
}

/** A worker that has not reported for this long counts as not ready. */
const REPORT_STALE_MS = 15_000;

export class Supervisor {
  private readonly slots: WorkerSlot[] = [];
  private readonly policy: RestartPolicy;
  private health: HealthServer | null = null;
  private healthPort: number | null = null;
  private readonly metrics: WorkerMetricsScrape;
  private stopping: Promise<number> | null = null;
  /** Set when the supervisor gave up on a crash-looping worker: the exit code is then non-zero. */
  private gaveUp = false;
  private resolveDone!: (code: number) => void;
  /** Resolves with the exit code when the supervisor is finished: stopped, gave up, or (test mode) all drained. */
  readonly done: Promise<number>;

  constructor(private readonly options: SupervisorOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) {
      throw new Error(`--workers must be a whole number of at least 1 (got ${options.workers})`);
    }
    this.policy = new RestartPolicy(options.restart);
    this.metrics = new WorkerMetricsScrape(options.logger);
    this.done = new Promise<number>((resolve) => (this.resolveDone = resolve));
  }

  async start(): Promise<void> {
    const { logger, workers } = this.options;
    logger.info('supervisor starting workers', { workers, pid: process.pid, graceMs: this.options.graceMs });
    if (this.options.health) {
      const path = this.options.metricsPath ?? null;
      const metrics = path === null ? {} : { metrics: { path, scrape: () => this.metrics.scrape(this.runningWorkers()) } };
      this.health = new HealthServer({ ...this.options.health, check: async () => this.report(), logger, ...metrics });
      this.healthPort = await this.health.start();
    }
    for (let id = 1; id <= workers; id++) {
      const slot: WorkerSlot = { id, child: null, startedAt: 0, ready: false, report: null, reportAt: 0, restartTimer: null, finalCode: null };
      this.slots.push(slot);
      this.spawn(slot);
    }
  }

  /** The port the health endpoints listen on (the one picked for port 0); null without them. */
  get boundHealthPort(): number | null {
    return this.healthPort;
  }

  /** Pids of the workers currently running, by worker id order. */
  workerPids(): number[] {
    return this.slots.flatMap((s) => (s.child?.pid !== undefined && s.child.exitCode === null && s.child.signalCode === null ? [s.child.pid] : []));
  }

  private runningWorkers(): { id: number; child: ChildProcess }[] {
    return this.slots.flatMap((s) =>
      s.child && s.child.exitCode === null && s.child.signalCode === null && s.child.connected ? [{ id: s.id, child: s.child }] : [],
    );
  }

  /** SIGTERM to every worker, SIGKILL to those still running after the grace period; resolves to the exit code. */
  stop(reason: string): Promise<number> {
    if (this.stopping) return this.stopping;
    this.stopping = this.shutdownWorkers(reason).then(async (code) => {
      await this.health?.stop();
      this.resolveDone(code);
      return code;
    });
    return this.stopping;
  }

  /** The combined health of every worker, as the supervisor's health endpoints answer it. */
  report(): HealthReport {
    const now = Date.now();
    const checks: HealthCheck[] = [];
    for (const slot of this.slots) {
      const alive = slot.child !== null && slot.child.exitCode === null && slot.child.signalCode === null;
      const fresh = slot.report !== null && now - slot.reportAt < REPORT_STALE_MS;
      const ok = alive && slot.ready && fresh && slot.report!.ready;
      const detail = !alive
        ? slot.restartTimer
          ? 'restarting'
          : 'not running'
        : !slot.ready
          ? 'starting'
          : !fresh
            ? `no report for ${Math.round((now - slot.reportAt) / 1000)} s`
            : slot.report!.ready
              ? `running (pid ${slot.child!.pid})`
              : 'not ready';
      checks.push({ name: `worker:${slot.id}`, kind: 'worker', ok, detail });
      for (const check of slot.report?.checks ?? []) checks.push({ ...check, name: `worker:${slot.id}/${check.name}` });
    }
    return healthReport(checks);
  }

  private spawn(slot: WorkerSlot): void {
    const { logger } = this.options;
    const child = fork(this.options.modulePath, [...this.options.args], {
      execArgv: [...(this.options.execArgv ?? process.execArgv)],
      env: { ...(this.options.env ?? process.env), [WORKER_ID_ENV]: String(slot.id) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    slot.child = child;
    slot.startedAt = Date.now();
    slot.ready = false;
    slot.report = null;
    logger.info('worker started', { workerId: slot.id, pid: child.pid });
    child.on('message', (message) => {
      if (!isWorkerMessage(message)) return;
      if (message.type === 'protean:ready') {
        slot.ready = true;
        logger.info('worker ready', { workerId: slot.id, pid: child.pid, started: message.started.length });
      } else if (message.type === 'protean:health') {
        slot.report = message.report;
        slot.reportAt = Date.now();
      } else {
        this.metrics.answer(message);
      }
    });
    child.on('error', (err) => logger.error('worker process error', { workerId: slot.id, error: err.message }));
    child.once('exit', (code, signal) => this.onExit(slot, child, code, signal));
  }

  private onExit(slot: WorkerSlot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const { logger } = this.options;
    if (slot.child !== child) return;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.stopping) {
      slot.finalCode = code ?? 1;
      logger.info('worker stopped', { workerId: slot.id, pid: child.pid, exit: how });
      return;
    }
    if (this.options.testMode) {
      slot.finalCode = code ?? 1;
      const level = code === 0 ? 'info' : 'error';
      logger[level]('worker finished (test mode)', { workerId: slot.id, pid: child.pid, exit: how });
      if (this.slots.every((s) => s.finalCode !== null)) {
        const failed = this.slots.filter((s) => s.finalCode !== 0).map((s) => s.id);
        void this.stop(failed.length ? `test mode: workers ${failed.join(', ')} failed` : 'test mode: all workers drained');
      }
      return;
    }
    const decision = this.policy.onCrash(slot.id, Date.now());
    const { crashLimit, crashWindowMs } = this.options.restart;
    if (decision.action === 'give-up') {
      logger.error('worker is crash-looping; supervisor gives up', {
        workerId: slot.id,
        exit: how,
        crashes: decision.recentCrashes,
        windowSeconds: crashWindowMs / 1000,
        hint: 'fix the error the worker logged above, then start the server again',
      });
      this.gaveUp = true;
      slot.child = null;
      void this.stop(`worker ${slot.id} crashed ${decision.recentCrashes} times within ${crashWindowMs / 1000} s`);
      return;
    }
    logger.warn('worker crashed; restarting', {
      workerId: slot.id,
      pid: child.pid,
      exit: how,
      restartInMs: decision.delayMs,
      crash: `${decision.recentCrashes} of ${crashLimit} within ${crashWindowMs / 1000} s`,
    });
    slot.child = null;
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (!this.stopping) this.spawn(slot);
    }, decision.delayMs);
  }

  private async shutdownWorkers(reason: string): Promise<number> {
    const { logger, graceMs } = this.options;
    for (const slot of this.slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.restartTimer = null;
    }
    const running = this.slots.filter((s) => s.child && s.child.exitCode === null && s.child.signalCode === null);
    logger.info('stopping workers', { reason, workers: running.map((s) => s.id), graceMs });
    const exits = running.map((s) => exited(s.child!));
    for (const slot of running) slot.child!.kill('SIGTERM');
    let killed: number[] = [];
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([Promise.all(exits), timer])) === 'timeout') {
      const stuck = running.filter((s) => s.child!.exitCode === null && s.child!.signalCode === null);
      killed = stuck.map((s) => s.id);
      logger.error('workers did not stop within the grace period; sending SIGKILL', { workers: killed, graceMs });
      for (const slot of stuck) slot.child!.kill('SIGKILL');
      await Promise.all(exits);
    }
    const failed = this.slots.filter((s) => s.finalCode !== null && s.finalCode !== 0).map((s) => s.id);
    const code = this.gaveUp || killed.length || failed.length ? 1 : 0;
    logger.info('supervisor stopped', { exitCode: code, ...(failed.length ? { failedWorkers: failed } : {}) });
    return code;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
