/**
 * The outbox page's numbers: per managed database the row counts by status, the age of the oldest
 * pending row, and the abandoned (and failed) rows with their last error, plus the retry action,
 * all through the same OutboxStore calls `protean-ts outbox status | list | retry` make.
 */
import { maskUri, type Domain, type OutboxCounts, type OutboxRow } from '@protean-ts/core';
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

export interface OutboxDatabaseView {
  database: string;
  label: string;
  counts: OutboxCounts;
  abandoned: OutboxRowView[];
  failed: OutboxRowView[];
}

function managedProviders(domain: Domain) {
  return [...domain.providers].filter(([, provider]) => provider.managed);
}

export async function outboxView(domain: Domain): Promise<OutboxDatabaseView[]> {
  const views: OutboxDatabaseView[] = [];
  for (const [name, provider] of managedProviders(domain)) {
    const uri = domain.config.databases[name]?.database_uri;
    const [counts, abandoned, failed] = await Promise.all([
      provider.outbox.counts(),
      provider.outbox.list({ status: 'abandoned', limit: ROWS_SHOWN }),
      provider.outbox.list({ status: 'failed', limit: ROWS_SHOWN }),
    ]);
    views.push({ database: name, label: `${provider.kind}${uri ? ` (${maskUri(uri)})` : ''}`, counts, abandoned: abandoned.map(rowView), failed: failed.map(rowView) });
  }
  return views;
}

/** Puts the given failed or abandoned rows of one database back to pending; returns how many moved. */
export async function retryOutboxRows(domain: Domain, database: string, ids: readonly string[]): Promise<number> {
  const provider = managedProviders(domain).find(([name]) => name === database)?.[1];
  if (!provider) {
    const known = managedProviders(domain).map(([name]) => name).join(', ') || 'none';
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
