/**
 * The outbox page's rows: the status collector (@protean-ts/server collectStatus) counts each
 * database's rows by status; this adds the abandoned (and failed) rows with their last error, and
 * the retry action, through the OutboxStore calls `protean-ts outbox list | retry` make.
 */
import type { Domain, OutboxRow } from '@protean-ts/core';
import type { OutboxReport } from '@protean-ts/server/operations';
import { ObservatoryRequestError } from './request-error.js';

/** Rows shown per database and status: enough to act on, small enough to send every few seconds. */
const ROWS_SHOWN = 50;

export interface OutboxRowView {
  id: string;
  status: string;
  messageId: string;
  messageType: string;
  streamName: string;
  targetBroker: string;
  retryCount: number;
  maxRetries: number;
  lastError: string | null;
  correlationId: string | null;
  createdAt: string;
  nextRetryAt: string | null;
}

/** A database's outbox as the status collector reports it, with the rows an operator acts on. */
export interface OutboxDatabaseView {
  /** The collector's report: counts by status (absent with `error`) and the oldest pending age. */
  report: OutboxReport;
  abandoned: OutboxRowView[];
  failed: OutboxRowView[];
}

function managedProviders(domain: Domain) {
  return [...domain.providers].filter(([, provider]) => provider.managed);
}

/** Adds each readable database's abandoned and failed rows to the collector's outbox reports. */
export async function outboxView(domain: Domain, reports: readonly OutboxReport[]): Promise<OutboxDatabaseView[]> {
  const providers = new Map(managedProviders(domain));
  return Promise.all(
    reports.map(async (report) => {
      const provider = providers.get(report.database);
      if (!provider || report.error) return { report, abandoned: [], failed: [] };
      const [abandoned, failed] = await Promise.all([
        provider.outbox.list({ status: 'abandoned', limit: ROWS_SHOWN }),
        provider.outbox.list({ status: 'failed', limit: ROWS_SHOWN }),
      ]);
      return { report, abandoned: abandoned.map(rowView), failed: failed.map(rowView) };
    }),
  );
}

/** Puts the given failed or abandoned rows of one database back to pending; returns how many moved. */
export async function retryOutboxRows(domain: Domain, database: string, ids: readonly string[]): Promise<number> {
  const provider = managedProviders(domain).find(([name]) => name === database)?.[1];
  if (!provider) {
    const known =
      managedProviders(domain)
        .map(([name]) => name)
        .join(', ') || 'none';
    throw new ObservatoryRequestError(`no managed database "${database}" (managed databases: ${known})`);
  }
  if (ids.length === 0) throw new ObservatoryRequestError('give the ids of the outbox rows to retry');
  return provider.outbox.retry({ ids });
}

function rowView(row: OutboxRow): OutboxRowView {
  return {
    id: row.id,
    status: row.status,
    messageId: row.messageId,
    messageType: row.messageType,
    streamName: row.streamName,
    targetBroker: row.targetBroker,
    retryCount: row.retryCount,
    maxRetries: row.maxRetries,
    lastError: row.lastError,
    correlationId: row.correlationId ?? null,
    createdAt: row.createdAt.toISOString(),
    nextRetryAt: row.nextRetryAt?.toISOString() ?? null,
  };
}
