/**
 * Which dead letters a subscription or stream name means: shared by `protean-ts dlq` and the
 * observatory's dead-letter actions, so both read, replay and purge the same letters. With
 * `outbox.partitions` > 1 a stream's letters are spread over its partitions' dead-letter
 * streams, and a letter's id is unique only within its partition's: each letter keeps its
 * partition stream, and replays and purges go to each partition's own.
 */
import { PARTITION_SEPARATOR, type Broker, type DeadLetter, type Domain } from '@protean-ts/core';
import { plannedStreams, planSubscriptions, type PlannedSubscription } from '@protean-ts/server/operations';
import { CliError, ExitCode } from '../cli-error.js';
import { echoId } from '../user-supplied-ids.js';

/** Dead letters read per stream; DLQs wait for an operator, so they stay far below this. */
export const DLQ_READ_LIMIT = 100_000;

export interface DlqTarget {
  stream: string;
  /** The broker streams whose dead letters are meant: `stream`'s partitions (just `stream` when it has one), or the one partition named. */
  streams: string[];
  broker: Broker;
  /** Set when the target is one subscription: only its letters. */
  group: string | null;
  /** Every subscription reading the stream (they all receive a replayed message). */
  readers: PlannedSubscription[];
}

/** A dead letter and the partition stream whose dead letters hold it. */
export type PartitionLetter = DeadLetter & { partitionStream: string };

/**
 * A subscription name (its letters only) or a stream name (every group's), or one partition
 * of a stream (`shop::order#2`). `onUnknown` hears about a name that is none of these.
 */
export function resolveDlqTarget(domain: Domain, name: string, brokerOption: string | undefined, onUnknown: (known: string[]) => void): DlqTarget {
  if (brokerOption !== undefined && !Object.hasOwn(domain.config.brokers, brokerOption)) {
    const known = Object.keys(domain.config.brokers).join(', ') || 'none';
    throw new CliError(`--broker ${echoId(brokerOption)} is no broker of this domain (brokers: ${known})`, ExitCode.USAGE);
  }
  const plan = planSubscriptions(domain).filter((p) => p.source === 'stream');
  const subscription = plan.find((p) => p.group === name);
  if (subscription) return subscriptionTarget(domain, subscription);
  const onBroker = plan.filter((p) => brokerOption === undefined || p.broker === brokerOption);
  const readers = onBroker.filter((p) => p.stream === name);
  if (readers.length) return { ...streamTarget(domain, readers), group: null };
  const partitionOf = onBroker.find((p) => name.startsWith(`${p.stream}${PARTITION_SEPARATOR}`) && plannedStreams(domain, p).includes(name));
  if (partitionOf) {
    const ofStream = onBroker.filter((p) => p.stream === partitionOf.stream && p.broker === partitionOf.broker);
    return { ...streamTarget(domain, ofStream), streams: [name], group: null };
  }
  onUnknown([...new Set(plan.map((p) => p.group))]);
  return { stream: name, streams: [name], broker: domain.runtime.infrastructure.broker(brokerOption ?? domain.config.outbox.broker), group: null, readers: [] };
}

/** One stream subscription's letters: on every partition of its stream. */
export function subscriptionTarget(domain: Domain, entry: PlannedSubscription): DlqTarget {
  const readers = planSubscriptions(domain).filter((p) => p.source === 'stream' && p.stream === entry.stream && p.broker === entry.broker);
  return { ...streamTarget(domain, readers), group: entry.group };
}

function streamTarget(domain: Domain, readers: PlannedSubscription[]): Omit<DlqTarget, 'group'> {
  const first = readers[0]!;
  return { stream: first.stream, streams: plannedStreams(domain, first), broker: domain.runtime.infrastructure.broker(first.broker), readers };
}

/** Every letter of the target's streams (all groups'), partition 0 first. */
export async function allDeadLettersOf(target: DlqTarget): Promise<PartitionLetter[]> {
  const perStream = await Promise.all(
    target.streams.map(async (stream) =>
      (await target.broker.listDeadLetters(stream, { count: DLQ_READ_LIMIT })).map((letter) => ({ ...letter, partitionStream: stream })),
    ),
  );
  return perStream.flat();
}

/** The target's letters: its group's, or every group's for a stream. */
export async function deadLettersOf(target: DlqTarget): Promise<PartitionLetter[]> {
  const letters = await allDeadLettersOf(target);
  return target.group === null ? letters : letters.filter((l) => l.group === target.group);
}

/**
 * The letters the ids name. An id names a letter within one partition's dead letters, so an id
 * found in several partitions is `ambiguous` (with the partition streams holding it): a replay
 * must not pick one by chance.
 */
export function lettersWithIds(
  letters: readonly PartitionLetter[],
  ids: readonly string[],
): { chosen: PartitionLetter[]; unknown: string[]; ambiguous: { id: string; streams: string[] }[] } {
  const chosen: PartitionLetter[] = [];
  const unknown: string[] = [];
  const ambiguous: { id: string; streams: string[] }[] = [];
  for (const id of ids) {
    const found = letters.filter((l) => l.id === id);
    if (found.length === 0) unknown.push(id);
    else if (found.length > 1) ambiguous.push({ id, streams: found.map((l) => l.partitionStream) });
    else chosen.push(found[0]!);
  }
  return { chosen, unknown, ambiguous };
}

/** Groups other than the target's whose letters share its streams' dead-letter lists (purge would take theirs too). */
export function foreignGroups(target: DlqTarget, all: readonly DeadLetter[]): string[] {
  return target.group === null ? [] : [...new Set(all.filter((l) => l.group !== target.group).map((l) => l.group))];
}

/** The letters by partition stream, in the target's stream order. */
export function byPartition(target: DlqTarget, letters: readonly PartitionLetter[]): { stream: string; letters: PartitionLetter[] }[] {
  return target.streams.map((stream) => ({ stream, letters: letters.filter((l) => l.partitionStream === stream) })).filter((group) => group.letters.length > 0);
}
