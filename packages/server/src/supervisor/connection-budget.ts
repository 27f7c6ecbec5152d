/**
 * How many connections `server --workers N` may open to each database, all workers together:
 * every worker has a pool of its own (`pool_size`) and, for a managed database, one more
 * connection that LISTENs for outbox wake-ups. The supervisor logs the total at start, so it can be
 * set against PostgreSQL's `max_connections` before the workers meet that limit one by one.
 */
import type { DatabaseSettings } from '@protean-ts/core';

export interface ConnectionBudget {
  database: string;
  workers: number;
  poolSize: number;
  /** The dedicated LISTEN connection of a worker (0 for an unmanaged database: no outbox relay there). */
  listenConnections: number;
  /** workers × (poolSize + listenConnections). */
  total: number;
}

/** One entry per database that opens connections (in-process databases open none). */
export function connectionBudgets(workers: number, databases: Readonly<Record<string, DatabaseSettings>>): ConnectionBudget[] {
  const budgets: ConnectionBudget[] = [];
  for (const [database, settings] of Object.entries(databases)) {
    if (settings.provider === 'memory') continue;
    const poolSize = settings.pool_size;
    const listenConnections = settings.managed ? 1 : 0;
    budgets.push({ database, workers, poolSize, listenConnections, total: workers * (poolSize + listenConnections) });
  }
  return budgets;
}
