/**
 * `protean-ts dlq list | replay | purge [subscription | stream]`: the dead letters subscriptions
 * set aside after `max_retries`. A subscription name (its consumer group) narrows to that
 * subscription's letters; a stream name covers every group reading it. A stream split into
 * partitions (`outbox.partitions`) is read on every partition, and one partition can be named
 * (`shop::order#2`). Event-store subscriptions keep theirs beside the events (dlq-event-store.ts).
 */
import { createInterface } from 'node:readline/promises';
import type { Domain } from '@protean-ts/core';
import { plannedStreams, planSubscriptions, type PlannedSubscription } from '@protean-ts/server/operations';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliContext, CliIO } from '../cli-context.js';
import { echoId, echoIds, requiredId } from '../user-supplied-ids.js';
import type { CommandGroup } from './command-group.js';
import {
  allDeadLettersOf,
  byPartition,
  deadLettersOf,
  foreignGroups,
  lettersWithIds,
  resolveDlqTarget,
  subscriptionTarget,
  type DlqTarget,
} from './dlq-targets.js';
import { eventStoreLetterCounts, listEventStoreLetters, purgeEventStoreLetters, replayEventStoreLetters } from './dlq-event-store.js';

const REPLAY_CHUNK = 100;

export const registerDlqCommands: CommandGroup = (program, context) => {
  const dlq = program.command('dlq').description("Inspect, replay or purge a subscription's dead letters");

  dlq
    .command('list')
    .description('Show dead letters of a subscription or stream; without one, a count per stream and subscription')
    .argument('[target]', 'subscription name (handler or subscriber), stream name, or one partition of a stream (shop::order#2)')
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
    .argument('<target>', 'subscription name, stream name, or one partition of a stream')
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
    .argument('<target>', 'subscription name, stream name, or one partition of a stream')
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
  const summary: { broker: string; stream: string; partitions?: number; groups: Record<string, number>; total: number }[] = [];
  for (const entry of streams.values()) {
    const letters = await allDeadLettersOf(subscriptionTarget(domain, entry));
    const groups: Record<string, number> = {};
    for (const letter of letters) groups[letter.group] = (groups[letter.group] ?? 0) + 1;
    const partitions = plannedStreams(domain, entry).length;
    summary.push({ broker: entry.broker, stream: entry.stream, ...(partitions > 1 ? { partitions } : {}), groups, total: letters.length });
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
    const where = s.partitions ? `${s.broker}:${s.stream} (${s.partitions} partitions)` : `${s.broker}:${s.stream}`;
    io.stdout(`${where}  ${s.total} dead ${plural(s.total, 'letter')}${detail ? ` (${detail})` : ''}\n`);
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
  const partitioned = target.streams.length > 1;
  if (options.json) {
    const partitions = partitioned ? { partitions: target.streams } : {};
    io.stdout(
      `${JSON.stringify({ stream: partitioned ? target.stream : target.streams[0], ...partitions, group: target.group, total: letters.length, letters: shown }, null, 2)}\n`,
    );
    return;
  }
  for (const letter of shown) {
    const what = letter.envelope ? `${letter.envelope.metadata.headers.type} ${letter.envelope.metadata.headers.id}` : 'kept as it came (no envelope)';
    // Ids are per partition: the partition stream goes with the id.
    const id = partitioned ? `${letter.id}  ${letter.partitionStream}` : letter.id;
    io.stdout(`${id}  ${letter.group}  ${what}  failed ${letter.failedAt}  deliveries ${letter.deliveryCount}\n`);
    io.stdout(`    ${letter.error.split('\n')[0]}\n`);
  }
  const stream = partitioned ? `stream ${target.stream} (${target.streams.length} partitions)` : `stream ${target.streams[0]}`;
  const scope = target.group ? `subscription ${target.group} on ${stream}` : stream;
  io.stdout(
    `dlq list: ${letters.length} dead ${plural(letters.length, 'letter')} for ${scope}${letters.length > shown.length ? `, first ${shown.length} shown (--limit)` : ''}\n`,
  );
}

async function replay(domain: Domain, io: CliIO, name: string, options: { id?: string[]; broker?: string }): Promise<void> {
  const target = resolve(domain, io, name, options.broker);
  const available = await deadLettersOf(target);
  let chosen = available;
  if (options.id) {
    const { chosen: named, unknown, ambiguous } = lettersWithIds(available, options.id);
    if (unknown.length)
      throw new CliError(`dlq replay: no dead letter ${echoIds(unknown)} for ${echoId(name)}; \`protean-ts dlq list\` with that target shows its ids`);
    if (ambiguous.length) {
      const where = ambiguous.map((a) => `${echoId(a.id)} is in ${a.streams.join(' and ')}`).join('; ');
      throw new CliError(
        `dlq replay: ${where} (dead-letter ids are per partition); name the partition as the target, e.g. \`protean-ts dlq replay ${ambiguous[0]!.streams.at(-1)} --id ${ambiguous[0]!.id}\``,
      );
    }
    chosen = named;
  }
  // Publishing an entry the broker could not decode would only dead-letter it again.
  const skipped = chosen.filter((l) => l.envelope === null);
  if (skipped.length) {
    io.stderr(
      `note: not replaying ${skipped.length} dead ${plural(skipped.length, 'letter')} holding a stream entry that could not be decoded (${skipped.map((l) => l.id).join(', ')}); ` +
        `see its rawFields with \`protean-ts dlq list ${name} --json\`, fix the producer that wrote it, then \`protean-ts dlq purge ${[...new Set(skipped.map((l) => l.partitionStream))].join(' / ')}\`\n`,
    );
    chosen = chosen.filter((l) => l.envelope !== null);
  }
  if (chosen.length === 0) {
    io.stdout(`dlq replay: nothing to replay for ${name}\n`);
    return;
  }
  const others = target.readers.filter((r) => r.group !== target.group).map((r) => r.group);
  if (target.group && others.length) {
    io.stderr(
      `note: replayed messages go back to stream ${target.stream}, so ${others.join(', ')} receive them again too (handlers are idempotent under at-least-once delivery)\n`,
    );
  }
  // Each letter goes back to its own partition, where its key's messages are.
  const partitions = byPartition(target, chosen);
  let replayed = 0;
  let done = 0;
  for (const partition of partitions) {
    const ids = partition.letters.map((l) => l.id);
    for (let start = 0; start < ids.length; start += REPLAY_CHUNK) {
      const chunk = ids.slice(start, start + REPLAY_CHUNK);
      replayed += await target.broker.replayDeadLetters(partition.stream, chunk);
      done += chunk.length;
      if (chosen.length > REPLAY_CHUNK) io.stderr(`dlq replay: ${done}/${chosen.length}\n`);
    }
  }
  const to = partitions.length > 1 || partitions[0]!.stream !== target.stream ? ` (${partitions.map((p) => p.stream).join(', ')})` : '';
  io.stdout(`dlq replay: ${replayed} dead ${plural(replayed, 'letter')} published back to ${target.broker.name}:${target.stream}${to}\n`);
}

async function purge(domain: Domain, io: CliIO, name: string, options: { broker?: string; yes?: boolean }): Promise<void> {
  const target = resolve(domain, io, name, options.broker);
  const all = await allDeadLettersOf(target);
  const where = target.streams.length > 1 ? `stream ${target.stream} (${target.streams.length} partitions)` : `stream ${target.streams[0]}`;
  if (target.group) {
    const foreign = foreignGroups(target, all);
    if (foreign.length) {
      throw new CliError(
        `dlq purge: the dead letters of ${where} also hold letters of ${foreign.join(', ')}, and purge removes the whole stream's; ` +
          `run \`protean-ts dlq purge ${target.stream}\` to remove them all, or replay ${name}'s with \`protean-ts dlq replay ${name}\``,
      );
    }
  }
  if (all.length === 0) {
    io.stdout(`dlq purge: no dead letters on ${where}\n`);
    return;
  }
  if (!options.yes) await confirm(`Delete ${all.length} dead ${plural(all.length, 'letter')} of ${where}?`);
  let purged = 0;
  for (const stream of target.streams) purged += await target.broker.purgeDeadLetters(stream);
  const partitions = target.streams.length > 1 ? ` (${target.streams.length} partitions)` : '';
  io.stdout(
    `dlq purge: ${purged} dead ${plural(purged, 'letter')} deleted from ${target.broker.name}:${target.streams.length > 1 ? target.stream : target.streams[0]}${partitions}\n`,
  );
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
