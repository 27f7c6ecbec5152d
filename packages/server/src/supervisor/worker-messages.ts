/**
 * What a worker tells its supervisor over the IPC channel of `child_process.fork`: that it is
 * up, and its health report every few seconds, so the supervisor can answer health probes for all.
 */
import type { HealthReport } from '../health/health-report.js';

export type WorkerMessage =
  | { type: 'protean:ready'; workerId: number; started: string[] }
  | { type: 'protean:health'; workerId: number; report: HealthReport };

export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'protean:ready' || type === 'protean:health';
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
