/**
 * `protean-ts status [--json] [--wait-drained] [--timeout S]`: the outbox of every managed
 * database and the backlog of every subscription, read from the databases and brokers directly,
 * so it describes whatever servers run against them. `--wait-drained` then waits until everything
 * committed before the call has been handled (see DrainWatch in @protean-ts/server for exactly
 * what that means) and exits 1 at the timeout, naming what is left.
 */
import Table from 'cli-table3';
import {
  collectStatus,
  DrainWatch,
  type DrainProgress,
  type OutboxReport,
  type RelayPressureReport,
  type SubscriptionBacklog,
  type SystemStatus,
} from '@protean-ts/server/operations';
import type { Domain } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliContext, CliIO } from '../cli-context.js';
import type { CommandGroup } from './command-group.js';
import { formatAge } from './outbox.js';

const DEFAULT_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 86_400;
const DEFAULT_INTERVAL_S = 1;
/** A progress line at least this often while nothing changes. */
const PROGRESS_EVERY_MS = 5_000;

interface StatusOptions {
  json?: boolean;
  waitDrained?: boolean;
  timeout: number;
  interval: number;
}

export const registerStatusCommands: CommandGroup = (program, context) => {
  program
    .command('status')
    .description("Show each database's outbox and each subscription's backlog; --wait-drained waits until what was committed before the call is handled")
    .option('--json', 'print JSON (the shape is documented in docs/observability.md)')
    .option('--wait-drained', 'wait until every outbox row open now is published and every subscription has handled its stream up to then; exit 1 at --timeout')
    .option('--timeout <seconds>', `how long --wait-drained waits (default ${DEFAULT_TIMEOUT_S})`, seconds('--timeout', MAX_TIMEOUT_S), DEFAULT_TIMEOUT_S)
    .option('--interval <seconds>', `how often --wait-drained checks (default ${DEFAULT_INTERVAL_S})`, seconds('--interval', 60), DEFAULT_INTERVAL_S)
    .action((options: StatusOptions) =>
      withDomain(context, (domain) => (options.waitDrained ? waitDrained(domain, context.io, options) : show(domain, context.io, options.json === true))),
    );
};

async function withDomain(context: CliContext, work: (domain: Domain) => Promise<void>): Promise<void> {
  const domain = await context.initDomain();
  try {
    await work(domain);
  } finally {
    await domain.close();
  }
}

async function show(domain: Domain, io: CliIO, json: boolean): Promise<void> {
  const status = await collectStatus(domain);
  if (json) {
    io.stdout(`${JSON.stringify(status, null, 2)}\n`);
    return;
  }
  io.stdout(renderStatus(status));
}

async function waitDrained(domain: Domain, io: CliIO, options: StatusOptions): Promise<void> {
  const started = Date.now();
  const deadline = started + options.timeout * 1000;
  const watch = await DrainWatch.begin(domain);
  let lastLine = '';
  let lastPrinted = 0;
  for (;;) {
    const progress = await watch.check();
    const waited = Date.now() - started;
    if (progress.drained) {
      if (options.json) io.stdout(`${JSON.stringify({ ...progress, waitedMs: waited }, null, 2)}\n`);
      else io.stdout(`status: drained — everything committed before the call is handled (${formatAge(waited)})\n`);
      return;
    }
    if (Date.now() >= deadline) {
      if (options.json) io.stdout(`${JSON.stringify({ ...progress, waitedMs: waited }, null, 2)}\n`);
      throw new CliError(
        `status --wait-drained: not drained after ${options.timeout} s; left:\n${progress.left.map((l) => `  ${l}`).join('\n')}`,
        ExitCode.FAILURE,
      );
    }
    const line = progressLine(progress);
    if (line !== lastLine || Date.now() - lastPrinted >= PROGRESS_EVERY_MS) {
      io.stderr(`status: waiting (${formatAge(waited)}) — ${line}\n`);
      lastLine = line;
      lastPrinted = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.interval * 1000, Math.max(0, deadline - Date.now()))));
  }
}

function progressLine(progress: DrainProgress): string {
  const shown = progress.left.slice(0, 3).join('; ');
  const more = progress.left.length > 3 ? `; and ${progress.left.length - 3} more` : '';
  return `${progress.step === 'outbox' ? 'outbox' : 'subscriptions'}: ${shown}${more}`;
}

/** The human form: one table for the outboxes, one for the subscriptions, and a summary line. */
export function renderStatus(status: SystemStatus): string {
  const out: string[] = [];
  out.push('Outbox');
  out.push(outboxTable(status.outboxes));
  for (const relay of status.relays ?? []) out.push(`  ${relayLine(relay)}`);
  out.push('Subscriptions');
  out.push(
    status.subscriptions.length ? subscriptionTable(status.subscriptions) : '  none (no handler, subscriber, process manager or projector runs asynchronously)',
  );
  out.push(summary(status));
  return `${out.join('\n').replace(/ +$/gm, '')}\n`;
}

function outboxTable(outboxes: readonly OutboxReport[]): string {
  const table = plainTable(['DATABASE', 'PENDING', 'PROCESSING', 'FAILED', 'SCHEDULED', 'PUBLISHED', 'ABANDONED', 'OLDEST PENDING']);
  for (const o of outboxes) {
    if (o.error !== undefined) table.push([o.database, { colSpan: 7, content: `error: ${o.error}` }]);
    else
      table.push(
        [
          o.database,
          o.pending,
          o.processing,
          o.failed,
          o.scheduled,
          o.published,
          o.abandoned,
          o.oldestPendingAgeMs == null ? '-' : formatAge(o.oldestPendingAgeMs),
        ].map(String),
      );
  }
  return table.toString();
}

/** `relay to redis: held back: lag 1200 > max 1000 (group "Billing" of stream "shop::order")`. */
export function relayLine(relay: RelayPressureReport): string {
  if (relay.error !== undefined) return `relay to ${relay.broker}: consumer lag unknown (max ${relay.maxConsumerLag}): ${relay.error}`;
  const worst = relay.worst;
  const where = worst ? ` (group "${worst.group}" of stream "${worst.stream}")` : ' (no consumer group yet)';
  if (relay.heldBack) return `relay to ${relay.broker}: held back: lag ${worst!.behind} > max ${relay.maxConsumerLag}${where}; rows wait in the outbox`;
  return `relay to ${relay.broker}: running: lag ${worst?.behind ?? 0} <= max ${relay.maxConsumerLag}${where}`;
}

function subscriptionTable(subscriptions: readonly SubscriptionBacklog[]): string {
  const table = plainTable(['SUBSCRIPTION', 'SOURCE', 'STREAM', 'LAG', 'PENDING', 'CONSUMERS', 'DEAD LETTERS', 'NOTE']);
  for (const s of subscriptions) {
    if (s.source === 'stream') {
      const note =
        s.error !== undefined
          ? `error: ${s.error}`
          : !s.exists
            ? 'no consumer group yet (no server started it)'
            : s.lostToTrimming > 0
              ? `${s.lostToTrimming} lost to trimming`
              : s.pendingLocalOnly
                ? `pending unknown: the broker shows only this process's unacked messages; set brokers.${s.broker}.management_uri`
                : '';
      // This process holds no deliveries: its own count (0) would read as "nothing in flight".
      const pending = s.pendingLocalOnly ? '?' : s.pending;
      // Partitioned: the numbers are sums over the partitions.
      const stream = `${s.broker}:${s.stream}${s.partitions ? ` (${s.partitions} partitions)` : ''}`;
      const circuits = s.circuits?.map((c) => `circuit ${c.state} in ${c.worker} since ${c.changedAt}${c.lastError ? ` (${c.lastError})` : ''}`) ?? [];
      const notes = [note, ...circuits].filter((text) => text !== '').join('; ');
      table.push([s.subscription, 'stream', stream, s.lag ?? '?', pending, s.consumers ?? '?', s.deadLetters ?? '-', notes].map(String));
    } else {
      const note = s.error !== undefined ? `error: ${s.error}` : s.owner ? `lease held by ${s.owner}` : 'no worker holds the lease';
      table.push([s.subscription, 'event store', s.category, `${s.behindCapped ? '≥' : ''}${s.behind}`, '-', s.owner ? 1 : 0, s.deadLetters, note].map(String));
    }
  }
  return table.toString();
}

function summary(status: SystemStatus): string {
  const open = status.outboxes.reduce((n, o) => n + (o.pending ?? 0) + (o.processing ?? 0) + (o.failed ?? 0), 0);
  const abandoned = status.outboxes.reduce((n, o) => n + (o.abandoned ?? 0), 0);
  const behind = status.subscriptions.filter((s) => (s.source === 'stream' ? (s.lag ?? 1) + s.pending > 0 : s.behind > 0));
  const dead = status.subscriptions.reduce((n, s) => n + (s.deadLetters ?? 0), 0);
  const errors = status.outboxes.filter((o) => o.error).length + status.subscriptions.filter((s) => s.error).length;
  const unknownPending = status.subscriptions.filter((s) => s.source === 'stream' && s.pendingLocalOnly).length;
  return `status: ${open} open outbox ${open === 1 ? 'row' : 'rows'}, ${abandoned} abandoned; ${behind.length} of ${status.subscriptions.length} subscriptions behind${unknownPending ? ` (pending unknown for ${unknownPending})` : ''}; ${dead} dead ${dead === 1 ? 'letter' : 'letters'}${errors ? `; ${errors} could not be read` : ''}`;
}

/** A table without borders, two spaces between columns: reads like `ps` or `kubectl get`. */
function plainTable(head: string[]): Table.Table {
  const none = {
    top: '',
    'top-mid': '',
    'top-left': '',
    'top-right': '',
    bottom: '',
    'bottom-mid': '',
    'bottom-left': '',
    'bottom-right': '',
    left: '  ',
    'left-mid': '',
    mid: '',
    'mid-mid': '',
    right: '',
    'right-mid': '',
    middle: '  ',
  };
  return new Table({ head, chars: none, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
}

function seconds(flag: string, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > max)
      throw new CliError(`${flag} must be a number of seconds above 0 and at most ${max}, got "${value}"`, ExitCode.USAGE);
    return n;
  };
}
