/**
 * The dead-letter actions of the subscriptions page: inspect, replay and purge one stream
 * subscription's letters, through the targets `protean-ts dlq` uses (commands/dlq-targets.ts).
 */
import type { Domain } from '@protean-ts/core';
import { planSubscriptions } from '@protean-ts/server/operations';
import { deadLettersOf, DLQ_READ_LIMIT, foreignGroups, type DlqTarget } from '../commands/dlq-targets.js';
import { ObservatoryRequestError } from './request-error.js';

/** Letters sent to the page per inspect; the count above them is always the full one. */
const LETTERS_SHOWN = 100;

export interface DeadLetterView {
  id: string;
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
 * One subscription's letters on one stream. A process manager reads several streams under one
 * group name, so the page names the stream too; without it the subscription's first stream is meant.
 */
function subscriptionTarget(domain: Domain, subscription: string, stream?: string): DlqTarget {
  const plan = planSubscriptions(domain).filter((p) => p.source === 'stream');
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
  const readers = plan.filter((p) => p.stream === entry.stream && p.broker === entry.broker);
  return { stream: entry.stream, broker: domain.runtime.broker(entry.broker), group: entry.group, readers };
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

/** Publishes the subscription's letters (all, or the given ids) back to their stream; undecodable ones stay. */
export async function replayDeadLetters(
  domain: Domain,
  subscription: string,
  stream?: string,
  ids?: readonly string[],
): Promise<{ replayed: number; skipped: string[] }> {
  const target = subscriptionTarget(domain, subscription, stream);
  const available = await deadLettersOf(target);
  const chosen = ids && ids.length ? ids : available.map((l) => l.id);
  const unknown = chosen.filter((id) => !available.some((l) => l.id === id));
  if (unknown.length)
    throw new ObservatoryRequestError(`no dead letter ${unknown.join(', ')} for ${subscription}; it may have been replayed or purged already`);
  const undecodable = new Set(available.filter((l) => l.envelope === null).map((l) => l.id));
  const replayable = chosen.filter((id) => !undecodable.has(id));
  const replayed = replayable.length ? await target.broker.replayDeadLetters(target.stream, replayable) : 0;
  return { replayed, skipped: chosen.filter((id) => undecodable.has(id)) };
}

/** Deletes the dead letters of the subscription's stream; refused when other subscriptions' letters share it. */
export async function purgeDeadLetters(domain: Domain, subscription: string, stream?: string): Promise<{ purged: number }> {
  const target = subscriptionTarget(domain, subscription, stream);
  const all = await target.broker.listDeadLetters(target.stream, { count: DLQ_READ_LIMIT });
  const foreign = foreignGroups(target, all);
  if (foreign.length) {
    throw new ObservatoryRequestError(
      `the dead letters of stream ${target.stream} also hold letters of ${foreign.join(', ')}, and purge removes the whole stream's; ` +
        `replay ${subscription}'s instead, or run \`protean-ts dlq purge ${target.stream}\``,
    );
  }
  return { purged: await target.broker.purgeDeadLetters(target.stream) };
}
