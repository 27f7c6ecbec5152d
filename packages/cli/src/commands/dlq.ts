/**
 * `protean-ts dlq list | replay | purge [subscription | stream]`: the dead letters subscriptions
 * set aside after `max_retries`. A subscription name (its consumer group) narrows to that
 * subscription's letters; a stream name covers every group reading it. Event-store
 * subscriptions keep theirs beside the events (dlq-event-store.ts).
 */
import { createInterface } from 'node:readline/promises';
import type { Domain } from '@protean-ts/core';
import { planSubscriptions, type PlannedSubscription } from '@protean-ts/server/operations';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliContext, CliIO } from '../cli-context.js';
import { echoId, echoIds, requiredId } from '../user-supplied-ids.js';
import type { CommandGroup } from './command-group.js';
import { deadLettersOf, DLQ_READ_LIMIT, foreignGroups, resolveDlqTarget, type DlqTarget } from './dlq-targets.js';
import { eventStoreLetterCounts, listEventStoreLetters, purgeEventStoreLetters, replayEventStoreLetters } from './dlq-event-store.js';

const REPLAY_CHUNK = 100;

export const registerDlqCommands: CommandGroup = (program, context) => {
  const dlq = program.command('dlq').description("Inspect, replay or purge a subscription's dead letters");

  dlq
    .command('list')
    .description('Show dead letters of a subscription or stream; without one, a count per stream and subscription')
    .argument('[target]', 'subscription name (handler or subscriber) or stream name')
    .option('--limit <n>', 'dead letters to show', positive('--limit'), 20)
    .option('--broker <name>', 'broker of a stream no subscription reads (default: the outbox broker)')
    .option('--json', 'print JSON')
    .action((target: string | undefined, options: { limit: number; broker?: string; json?: boolean }) => {
      if (target !== undefined) requiredTarget(target, 'list');
      return withDomain(context, (domain) => {
        const fromStore = target ? eventStoreSubscription(domain, target) : undefined;
        if (fromStore) return listEventStoreLetters(domain, context.io, fromStore, options);
        return target ? listOne(domain, context.io, target, options) : listAll(domain, context.io, options.json === true);
      });
    });

  dlq
    .command('replay')
    .description('Publish dead letters back to their stream (every subscription of that stream receives them again) and remove them')
    .argument('<target>', 'subscription name or stream name')
    .option('--id <ids...>', 'only these dead letters (ids as `dlq list` shows them)')
    .option('--broker <name>', 'broker of a stream no subscription reads')
    .action((target: string, options: { id?: string[]; broker?: string }) => {
      requiredTarget(target, 'replay');
      for (const id of options.id ?? []) requiredId(id, 'dlq replay: --id', '--id 1700000000000-0 (an id `dlq list` shows)');
      return withDomain(context, (domain) => {
        const fromStore = eventStoreSubscription(domain, target);
        return fromStore ? replayEventStoreLetters(domain, context.io, fromStore, options.id) : replay(domain, context.io, target, options);
      });
    });

  dlq
    .command('purge')
    .description('Delete the dead letters of a stream (or of a subscription that is alone in its stream)')
    .argument('<target>', 'subscription name or stream name')
    .option('--broker <name>', 'broker of a stream no subscription reads')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((target: string, options: { broker?: string; yes?: boolean }) => {
      requiredTarget(target, 'purge');
      return withDomain(context, (domain) => {
        const fromStore = eventStoreSubscription(domain, target);
        return fromStore ? purgeEventStoreLetters(domain, context.io, fromStore, confirm, options.yes === true) : purge(domain, context.io, target, options);
      });
    });
};

function requiredTarget(target: string, command: string): void {
  requiredId(target, `dlq ${command}: <target>`, `dlq ${command} Receipts (a subscription) or dlq ${command} shop::order (a stream)`);
}

/** The event-store subscription of that name, if it is one. */
function eventStoreSubscription(domain: Domain, name: string): PlannedSubscription | undefined {
  return planSubscriptions(domain).find((p) => p.source === 'event_store' && p.group === name);
}

async function withDomain(context: CliContext, work: (domain: Domain) => Promise<void>): Promise<void> {
  const domain = await context.initDomain();
  try {
    await work(domain);
  } finally {
    await domain.close();
  }
}

function resolve(domain: Domain, io: CliIO, name: string, brokerOption?: string): DlqTarget {
  return resolveDlqTarget(domain, name, brokerOption, (known) => {
    io.stderr(
      `note: ${echoId(name)} is no subscription and no stream a subscription reads; treating it as a stream name (subscriptions: ${known.join(', ') || 'none'})\n`,
    );
  });
}

async function listAll(domain: Domain, io: CliIO, json: boolean): Promise<void> {
  const streams = new Map<string, PlannedSubscription>();
  const plan = planSubscriptions(domain);
  for (const entry of plan.filter((p) => p.source === 'stream')) streams.set(`${entry.broker}\u0000${entry.stream}`, entry);
  const summary: { broker: string; stream: string; groups: Record<string, number>; total: number }[] = [];
  for (const entry of streams.values()) {
    const letters = await domain.runtime.broker(entry.broker).listDeadLetters(entry.stream, { count: DLQ_READ_LIMIT });
    const groups: Record<string, number> = {};
    for (const letter of letters) groups[letter.group] = (groups[letter.group] ?? 0) + 1;
    summary.push({ broker: entry.broker, stream: entry.stream, groups, total: letters.length });
  }
  const fromStore = plan.filter((p) => p.source === 'event_store');
  const storeCounts = fromStore.length ? await eventStoreLetterCounts(domain, fromStore) : [];
  if (json) {
    const eventStore = storeCounts.map((c) => ({ source: 'event_store', subscription: c.subscription, category: c.category, total: c.total }));
    io.stdout(`${JSON.stringify([...summary, ...eventStore], null, 2)}\n`);
    return;
  }
  for (const s of summary) {
    const detail = Object.entries(s.groups)
      .map(([group, n]) => `${group}: ${n}`)
      .join(', ');
    io.stdout(`${s.broker}:${s.stream}  ${s.total} dead ${plural(s.total, 'letter')}${detail ? ` (${detail})` : ''}\n`);
  }
  for (const c of storeCounts) io.stdout(`event store ${c.category}  ${c.total} dead ${plural(c.total, 'letter')} (${c.subscription})\n`);
  const total = summary.reduce((n, s) => n + s.total, 0) + storeCounts.reduce((n, c) => n + c.total, 0);
  const places = storeCounts.length
    ? `${summary.length} ${plural(summary.length, 'stream')} and ${storeCounts.length} event-store ${plural(storeCounts.length, 'subscription')}`
    : `${summary.length} ${plural(summary.length, 'stream')}`;
  io.stdout(`dlq list: ${total} dead ${plural(total, 'letter')} in ${places}\n`);
}

async function listOne(domain: Domain, io: CliIO, name: string, options: { limit: number; broker?: string; json?: boolean }): Promise<void> {
  const target = resolve(domain, io, name, options.broker);
  const letters = await deadLettersOf(target);
  const shown = letters.slice(0, options.limit);
  if (options.json) {
    io.stdout(`${JSON.stringify({ stream: target.stream, group: target.group, total: letters.length, letters: shown }, null, 2)}\n`);
    return;
  }
  for (const letter of shown) {
    const what = letter.envelope ? `${letter.envelope.metadata.headers.type} ${letter.envelope.metadata.headers.id}` : 'undecodable stream entry';
    io.stdout(`${letter.id}  ${letter.group}  ${what}  failed ${letter.failedAt}  deliveries ${letter.deliveryCount}\n`);
    io.stdout(`    ${letter.error.split('\n')[0]}\n`);
  }
  const scope = target.group ? `subscription ${target.group} on stream ${target.stream}` : `stream ${target.stream}`;
  io.stdout(
    `dlq list: ${letters.length} dead ${plural(letters.length, 'letter')} for ${scope}${letters.length > shown.length ? `, first ${shown.length} shown (--limit)` : ''}\n`,
  );
}

async function replay(domain: Domain, io: CliIO, name: string, options: { id?: string[]; broker?: string }): Promise<void> {
  const target = resolve(domain, io, name, options.broker);
  const available = await deadLettersOf(target);
  let ids = available.map((l) => l.id);
  if (options.id) {
    const unknown = options.id.filter((id) => !ids.includes(id));
    if (unknown.length)
      throw new CliError(`dlq replay: no dead letter ${echoIds(unknown)} for ${echoId(name)}; \`protean-ts dlq list\` with that target shows its ids`);
    ids = options.id;
  }
  // Publishing an entry the broker could not decode would only dead-letter it again.
  const undecodable = new Set(available.filter((l) => l.envelope === null).map((l) => l.id));
  const skipped = ids.filter((id) => undecodable.has(id));
  if (skipped.length) {
    io.stderr(
      `note: not replaying ${skipped.length} dead ${plural(skipped.length, 'letter')} holding a stream entry that could not be decoded (${skipped.join(', ')}); ` +
        `see its rawFields with \`protean-ts dlq list ${name} --json\`, fix the producer that wrote it, then \`protean-ts dlq purge ${target.stream}\`\n`,
    );
    ids = ids.filter((id) => !undecodable.has(id));
  }
  if (ids.length === 0) {
    io.stdout(`dlq replay: nothing to replay for ${name}\n`);
    return;
  }
  const others = target.readers.filter((r) => r.group !== target.group).map((r) => r.group);
  if (target.group && others.length) {
    io.stderr(
      `note: replayed messages go back to stream ${target.stream}, so ${others.join(', ')} receive them again too (handlers are idempotent under at-least-once delivery)\n`,
    );
  }
  let replayed = 0;
  for (let start = 0; start < ids.length; start += REPLAY_CHUNK) {
    replayed += await target.broker.replayDeadLetters(target.stream, ids.slice(start, start + REPLAY_CHUNK));
    if (ids.length > REPLAY_CHUNK) io.stderr(`dlq replay: ${Math.min(start + REPLAY_CHUNK, ids.length)}/${ids.length}\n`);
  }
  io.stdout(`dlq replay: ${replayed} dead ${plural(replayed, 'letter')} published back to ${target.broker.name}:${target.stream}\n`);
}

async function purge(domain: Domain, io: CliIO, name: string, options: { broker?: string; yes?: boolean }): Promise<void> {
  const target = resolve(domain, io, name, options.broker);
  const all = await target.broker.listDeadLetters(target.stream, { count: DLQ_READ_LIMIT });
  if (target.group) {
    const foreign = foreignGroups(target, all);
    if (foreign.length) {
      throw new CliError(
        `dlq purge: the dead letters of stream ${target.stream} also hold letters of ${foreign.join(', ')}, and purge removes the whole stream's; ` +
          `run \`protean-ts dlq purge ${target.stream}\` to remove them all, or replay ${name}'s with \`protean-ts dlq replay ${name}\``,
      );
    }
  }
  if (all.length === 0) {
    io.stdout(`dlq purge: no dead letters on stream ${target.stream}\n`);
    return;
  }
  if (!options.yes) await confirm(`Delete ${all.length} dead ${plural(all.length, 'letter')} of stream ${target.stream}?`);
  const purged = await target.broker.purgeDeadLetters(target.stream);
  io.stdout(`dlq purge: ${purged} dead ${plural(purged, 'letter')} deleted from ${target.broker.name}:${target.stream}\n`);
}

async function confirm(question: string): Promise<void> {
  if (!process.stdin.isTTY) throw new CliError(`${question} There is no terminal to confirm on; pass -y to go ahead`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('dlq purge cancelled; nothing was deleted');
  } finally {
    prompt.close();
  }
}

function positive(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} must be a whole number of at least 1, got "${value}"`, ExitCode.USAGE);
    return n;
  };
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
