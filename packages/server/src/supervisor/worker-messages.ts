/**
 * What a worker tells its supervisor over the IPC channel of `child_process.fork`: that it is
 * up, its health report every few seconds, so the supervisor can answer health probes for all,
 * and its metrics when the supervisor asks for them (a scrape of the supervisor's endpoint).
 */
import type { ScopeMetrics } from '@opentelemetry/sdk-metrics';
import type { HealthReport } from '../health/health-report.js';

export type WorkerMessage =
  | { type: 'protean:ready'; workerId: number; started: string[] }
  | { type: 'protean:health'; workerId: number; report: HealthReport }
  /** The answer to a MetricsRequest: null when this worker has no metrics (another MeterProvider was registered). */
  | { type: 'protean:metrics'; workerId: number; requestId: number; scopeMetrics: ScopeMetrics[] | null; error?: string };

/** What the supervisor asks a worker. */
export interface MetricsRequest {
  type: 'protean:metrics-request';
  requestId: number;
}

export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'protean:ready' || type === 'protean:health' || type === 'protean:metrics';
}

export function isMetricsRequest(value: unknown): value is MetricsRequest {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'protean:metrics-request';
}

/** The environment variable carrying a forked worker's id (1..N); absent in a single process. */
export const WORKER_ID_ENV = 'PROTEAN_WORKER_ID';

/** The worker id of this process, or null when it is not a supervised worker. */
export function currentWorkerId(env: NodeJS.ProcessEnv = process.env): number | null {
  const raw = env[WORKER_ID_ENV];
  if (raw === undefined || raw === '') return null;
  const id = Number(raw);
  return Number.isInteger(id) && id > 0 ? id : null;
}
