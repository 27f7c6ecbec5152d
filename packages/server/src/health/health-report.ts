/**
 * The shape health endpoints answer with: one check per database, broker and subscription
 * (or per worker, when the supervisor answers for its workers), and whether all are fine.
 */

export type HealthCheckKind = 'database' | 'broker' | 'subscription' | 'outbox' | 'worker' | 'engine';

export interface HealthCheck {
  /** What was checked, e.g. `database:default`, `subscription:ReserveStock`. */
  name: string;
  kind: HealthCheckKind;
  ok: boolean;
  /** Why it is not ok, or a short state (`running`, `backing off`). */
  detail?: string;
  /** Something to know although the check is ok (an open circuit breaker); `/readyz` lists these under `notes`. */
  note?: string;
}

export interface HealthReport {
  /** True when every check is ok. */
  ready: boolean;
  checks: HealthCheck[];
}

export function healthReport(checks: HealthCheck[]): HealthReport {
  return { ready: checks.length > 0 && checks.every((c) => c.ok), checks };
}
