/**
 * The dead-letter actions of the subscriptions page: inspect, replay and purge one stream
 * subscription's letters, through the targets `protean-ts dlq` uses (commands/dlq-targets.ts):
 * on every partition of its stream when `outbox.partitions` > 1, each letter with its partition.
 */
import type { Domain } from '@protean-ts/core';
import { plannedStreams, planSubscriptions } from '@protean-ts/server/operations';
import {
  allDeadLettersOf,
  byPartition,
  deadLettersOf,
  foreignGroups,
  lettersWithIds,
  subscriptionTarget as targetOf,
  type DlqTarget,
} from '../commands/dlq-targets.js';
import { ObservatoryRequestError } from './request-error.js';

/** Letters sent to the page per inspect; the count above them is always the full one. */
const LETTERS_SHOWN = 100;

export interface DeadLetterView {
  /** Unique within its partition stream's dead letters only. */
  id: string;
  /** The partition stream whose dead letters hold it (the subscription's stream itself unless partitioned). */
  stream: string;
  originalId: string;
  group: string;
  messageType: string | null;
  messageId: string | null;
  correlationId: string | null;
  error: string;
  failedAt: string;
  deliveryCount: number;
  /** The message's data, or the raw stream fields of an entry the broker could not decode. */
  payload: unknown;
}

/**
 * One subscription's letters on one stream, on all its partitions. A process manager reads
 * several streams under one group name, so the page names the stream too; without it the
 * subscription's first stream is meant. Naming one partition's stream (`shop::order#2`) narrows
 * to that partition.
 */
function subscriptionTarget(domain: Domain, subscription: string, stream?: string): DlqTarget {
  const plan = planSubscriptions(domain).filter((p) => p.source === 'stream');
  const partition = plan.find((p) => p.group === subscription && p.stream !== stream && stream !== undefined && plannedStreams(domain, p).includes(stream));
  if (partition) return { ...targetOf(domain, partition), streams: [stream!] };
  const entry = plan.find((p) => p.group === subscription && (stream === undefined || p.stream === stream));
  if (!entry) {
    const known = [...new Set(plan.map((p) => p.group))].join(', ') || 'none';
    throw new ObservatoryRequestError(
      stream === undefined || !plan.some((p) => p.group === subscription)
        ? `no stream subscription "${subscription}" (subscriptions: ${known})`
        : `subscription "${subscription}" does not read stream "${stream}" (it reads ${plan
            .filter((p) => p.group === subscription)
            .map((p) => p.stream)
            .join(', ')})`,
    );
  }
  return targetOf(domain, entry);
}

export async function inspectDeadLetters(
  domain: Domain,
  subscription: string,
  stream?: string,
): Promise<{ subscription: string; stream: string; total: number; letters: DeadLetterView[] }> {
  const target = subscriptionTarget(domain, subscription, stream);
  const letters = await deadLettersOf(target);
  return {
    subscription,
    stream: target.stream,
    total: letters.length,
    letters: letters.slice(0, LETTERS_SHOWN).map((letter) => ({
      id: letter.id,
      stream: letter.partitionStream,
      originalId: letter.originalId,
      group: letter.group,
      messageType: letter.envelope?.metadata.headers.type ?? null,
      messageId: letter.envelope?.metadata.headers.id ?? null,
      correlationId: letter.envelope?.metadata.domain.correlationId ?? null,
      error: letter.error,
      failedAt: letter.failedAt,
      deliveryCount: letter.deliveryCount,
      payload: letter.envelope ? letter.envelope.data : (letter.rawFields ?? null),
    })),
  };
}

/** Publishes the subscription's letters (all, or the given ids) back to their partition's stream; undecodable ones stay. */
export async function replayDeadLetters(
  domain: Domain,
  subscription: string,
  stream?: string,
  ids?: readonly string[],
): Promise<{ replayed: number; skipped: string[] }> {
  const target = subscriptionTarget(domain, subscription, stream);
  const available = await deadLettersOf(target);
  let chosen = available;
  if (ids && ids.length) {
    const named = lettersWithIds(available, ids);
    if (named.unknown.length)
      throw new ObservatoryRequestError(`no dead letter ${named.unknown.join(', ')} for ${subscription}; it may have been replayed or purged already`);
    if (named.ambiguous.length) {
      const where = named.ambiguous.map((a) => `${a.id} is in ${a.streams.join(' and ')}`).join('; ');
      throw new ObservatoryRequestError(`${where} (dead-letter ids are per partition); name the partition's stream to replay it`);
    }
    chosen = named.chosen;
  }
  const replayable = chosen.filter((l) => l.envelope !== null);
  let replayed = 0;
  for (const partition of byPartition(target, replayable))
    replayed += await target.broker.replayDeadLetters(
      partition.stream,
      partition.letters.map((l) => l.id),
    );
  return { replayed, skipped: chosen.filter((l) => l.envelope === null).map((l) => l.id) };
}

/** Deletes the dead letters of the subscription's stream (every partition's); refused when other subscriptions' letters share it. */
export async function purgeDeadLetters(domain: Domain, subscription: string, stream?: string): Promise<{ purged: number }> {
  const target = subscriptionTarget(domain, subscription, stream);
  const all = await allDeadLettersOf(target);
  const foreign = foreignGroups(target, all);
  if (foreign.length) {
    throw new ObservatoryRequestError(
      `the dead letters of stream ${target.stream} also hold letters of ${foreign.join(', ')}, and purge removes the whole stream's; ` +
        `replay ${subscription}'s instead, or run \`protean-ts dlq purge ${target.stream}\``,
    );
  }
  let purged = 0;
  for (const partition of target.streams) purged += await target.broker.purgeDeadLetters(partition);
  return { purged };
}
