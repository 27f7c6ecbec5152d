/**
 * Which dead letters a subscription or stream name means: shared by `protean-ts dlq` and the
 * observatory's dead-letter actions, so both read, replay and purge the same letters.
 */
import type { Broker, DeadLetter, Domain } from '@protean-ts/core';
import { planSubscriptions, type PlannedSubscription } from '@protean-ts/server/operations';
import { CliError, ExitCode } from '../cli-error.js';
import { echoId } from '../user-supplied-ids.js';

/** Dead letters read per stream; DLQs wait for an operator, so they stay far below this. */
export const DLQ_READ_LIMIT = 100_000;

export interface DlqTarget {
  stream: string;
  broker: Broker;
  /** Set when the target is one subscription: only its letters. */
  group: string | null;
  /** Every subscription reading the stream (they all receive a replayed message). */
  readers: PlannedSubscription[];
}

/**
 * A subscription name (its letters only) or a stream name (every group's). `onUnknown` hears
 * about a name that is neither a subscription nor a stream any subscription reads.
 */
export function resolveDlqTarget(domain: Domain, name: string, brokerOption: string | undefined, onUnknown: (known: string[]) => void): DlqTarget {
  if (brokerOption !== undefined && !Object.hasOwn(domain.config.brokers, brokerOption)) {
    const known = Object.keys(domain.config.brokers).join(', ') || 'none';
    throw new CliError(`--broker ${echoId(brokerOption)} is no broker of this domain (brokers: ${known})`, ExitCode.USAGE);
  }
  const plan = planSubscriptions(domain).filter((p) => p.source === 'stream');
  const subscription = plan.find((p) => p.group === name);
  if (subscription) {
    const readers = plan.filter((p) => p.stream === subscription.stream && p.broker === subscription.broker);
    return { stream: subscription.stream, broker: domain.runtime.broker(subscription.broker), group: subscription.group, readers };
  }
  const readers = plan.filter((p) => p.stream === name && (brokerOption === undefined || p.broker === brokerOption));
  if (readers.length === 0) onUnknown([...new Set(plan.map((p) => p.group))]);
  const brokerName = brokerOption ?? readers[0]?.broker ?? domain.config.outbox.broker;
  return { stream: name, broker: domain.runtime.broker(brokerName), group: null, readers };
}

export async function deadLettersOf(target: DlqTarget): Promise<DeadLetter[]> {
  const letters = await target.broker.listDeadLetters(target.stream, { count: DLQ_READ_LIMIT });
  return target.group === null ? letters : letters.filter((l) => l.group === target.group);
}

/** Groups other than the target's whose letters share its stream's dead-letter list (purge would take theirs too). */
export function foreignGroups(target: DlqTarget, all: readonly DeadLetter[]): string[] {
  return target.group === null ? [] : [...new Set(all.filter((l) => l.group !== target.group).map((l) => l.group))];
}
