/**
 * `protean-ts outbox status | list | retry`: what the transactional outbox of each managed
 * database holds. `status` counts rows by status with the age of the oldest pending one, `list`
 * shows rows (e.g. `--status abandoned`), `retry` puts failed or abandoned rows back to pending.
 */
import { maskUri, type DatabaseProvider, type Domain, type OutboxCounts, type OutboxRow, type OutboxStatus } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliContext, CliIO } from '../cli-context.js';
import type { CommandGroup } from './command-group.js';

const STATUSES: readonly OutboxStatus[] = ['pending', 'processing', 'published', 'failed', 'abandoned', 'scheduled'];

interface Target {
  name: string;
  provider: DatabaseProvider;
  label: string;
}

export const registerOutboxCommands: CommandGroup = (program, context) => {
  const outbox = program.command('outbox').description('Inspect and repair the transactional outbox of each managed database');

  outbox
    .command('status')
    .description('Count outbox rows by status per database, with the age of the oldest pending row')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => withDomain(context, (domain) => status(domain, context.io, options.json === true)));

  outbox
    .command('list')
    .description('List outbox rows, newest status first, e.g. --status abandoned')
    .option('--status <status>', `only rows in this status (${STATUSES.join(', ')})`, statusOption)
    .option('--limit <n>', 'rows per database', positive('--limit'), 50)
    .option('--database <name>', 'only this [databases.<name>]')
    .option('--json', 'print JSON')
    .action((options: { status?: OutboxStatus; limit: number; database?: string; json?: boolean }) =>
      withDomain(context, (domain) => list(domain, context.io, options)),
    );

  outbox
    .command('retry')
    .description('Put rows back to pending with a fresh attempt count: the given ids, or every abandoned row with --abandoned')
    .argument('[ids...]', 'outbox row ids (as `outbox list` shows them)')
    .option('--abandoned', 'retry every abandoned row')
    .option('--database <name>', 'only this [databases.<name>] (required for ids when there are several databases)')
    .action((ids: string[], options: { abandoned?: boolean; database?: string }) => withDomain(context, (domain) => retry(domain, context.io, ids, options)));
};

async function withDomain(context: CliContext, work: (domain: Domain) => Promise<void>): Promise<void> {
  const domain = await context.initDomain();
  try {
    await work(domain);
  } finally {
    await domain.close();
  }
}

function targets(domain: Domain, only?: string): Target[] {
  const all = [...domain.providers].filter(([, provider]) => provider.managed);
  if (only !== undefined && !all.some(([name]) => name === only)) {
    const known = all.map(([name]) => name).join(', ') || 'none';
    throw new CliError(`--database ${only}: no managed database of that name (managed databases: ${known})`, ExitCode.USAGE);
  }
  return all
    .filter(([name]) => only === undefined || name === only)
    .map(([name, provider]) => {
      const uri = domain.config.databases[name]?.database_uri;
      return { name, provider, label: `${provider.kind}${uri ? ` (${maskUri(uri)})` : ''}` };
    });
}

async function status(domain: Domain, io: CliIO, json: boolean): Promise<void> {
  const results: { target: Target; counts: OutboxCounts }[] = [];
  for (const target of targets(domain)) results.push({ target, counts: await target.provider.outbox.counts() });
  if (json) {
    io.stdout(
      `${JSON.stringify(
        results.map(({ target, counts }) => ({ database: target.name, ...counts })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  for (const { target, counts } of results) {
    io.stdout(`[databases.${target.name}] ${target.label}\n`);
    io.stdout(`  ${STATUSES.map((s) => `${s} ${counts[s]}`).join('  ')}\n`);
    io.stdout(`  oldest pending: ${counts.oldestPendingAgeMs === null ? 'none' : formatAge(counts.oldestPendingAgeMs)}\n`);
  }
  const total = (key: OutboxStatus) => results.reduce((n, r) => n + r.counts[key], 0);
  io.stdout(
    `outbox status: ${results.length} ${plural(results.length, 'database')}, ${total('pending')} pending, ${total('processing')} processing, ` +
      `${total('failed')} failed, ${total('abandoned')} abandoned\n`,
  );
}

async function list(domain: Domain, io: CliIO, options: { status?: OutboxStatus; limit: number; database?: string; json?: boolean }): Promise<void> {
  const results: { database: string; rows: OutboxRow[] }[] = [];
  for (const target of targets(domain, options.database)) {
    const query = options.status ? { status: options.status, limit: options.limit } : { limit: options.limit };
    results.push({ database: target.name, rows: await target.provider.outbox.list(query) });
  }
  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        results.map((r) => ({ database: r.database, rows: r.rows.map(rowSummary) })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  let shown = 0;
  for (const { database, rows } of results) {
    io.stdout(`[databases.${database}] ${rows.length} ${plural(rows.length, 'row')}${options.status ? ` ${options.status}` : ''}\n`);
    for (const row of rows) {
      const error = row.lastError ? `  error: ${row.lastError.split('\n')[0]}` : '';
      io.stdout(
        `  ${row.id}  ${row.status}  ${row.messageType} → ${row.targetBroker}:${row.streamName}  attempts ${row.retryCount}/${row.maxRetries}  created ${row.createdAt.toISOString()}${row.deliverAt ? `  due ${row.deliverAt.toISOString()}` : ''}${error}\n`,
      );
    }
    shown += rows.length;
  }
  io.stdout(
    `outbox list: ${shown} ${plural(shown, 'row')} shown${options.status ? ` (status ${options.status})` : ''}, at most ${options.limit} per database\n`,
  );
}

async function retry(domain: Domain, io: CliIO, ids: string[], options: { abandoned?: boolean; database?: string }): Promise<void> {
  if (ids.length > 0 && options.abandoned) throw new CliError('outbox retry: give row ids or --abandoned, not both', ExitCode.USAGE);
  if (ids.length === 0 && !options.abandoned)
    throw new CliError('outbox retry: give the ids of the rows to retry, or --abandoned for every abandoned row', ExitCode.USAGE);
  const chosen = targets(domain, options.database);
  if (ids.length > 0 && chosen.length > 1) {
    // Row ids are per database; retrying id 7 everywhere would touch unrelated rows.
    throw new CliError(`outbox retry: row ids belong to one database; add --database (one of ${chosen.map((t) => t.name).join(', ')})`, ExitCode.USAGE);
  }
  let total = 0;
  for (const target of chosen) {
    const count = await target.provider.outbox.retry(options.abandoned ? { allAbandoned: true } : { ids });
    io.stdout(`[databases.${target.name}] ${count} ${plural(count, 'row')} back to pending\n`);
    total += count;
  }
  io.stdout(`outbox retry: ${total} ${plural(total, 'row')} back to pending; a running server publishes them on its next tick\n`);
  if (ids.length > 0 && total < ids.length) {
    throw new CliError(
      `outbox retry: ${ids.length - total} of ${ids.length} ids were not retried (unknown, or not failed/abandoned); see \`protean-ts outbox list\``,
    );
  }
}

function rowSummary(row: OutboxRow): Record<string, unknown> {
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
    createdAt: row.createdAt.toISOString(),
    publishedAt: row.publishedAt?.toISOString() ?? null,
    deliverAt: row.deliverAt?.toISOString() ?? null,
  };
}

function statusOption(value: string): OutboxStatus {
  if (!(STATUSES as readonly string[]).includes(value)) {
    throw new CliError(`--status must be one of ${STATUSES.join(', ')}, got "${value}"`, ExitCode.USAGE);
  }
  return value as OutboxStatus;
}

function positive(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} must be a whole number of at least 1, got "${value}"`, ExitCode.USAGE);
    return n;
  };
}

/** `2h 5m`, `3m 12s`, `840 ms`: the age of the oldest pending row at a glance. */
export function formatAge(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.floor(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
