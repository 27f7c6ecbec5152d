/**
 * A message's journey by correlation id: every outbox row that carries it (the events and
 * commands one request set off, with when each was written and published), and for each the
 * subscriptions whose handler answers its type, with what their inbox says: handled (the
 * checkpoint of its key reached its sequence), passed over (and why), or waiting; plus any dead
 * letter holding it. Read through the outbox and inbox ports, so on every database provider.
 */
import type { Domain, InboxCheckpointRecord, InboxPassedRecord, OutboxRow } from '@protean-ts/core';
import { managedDatabases, plannedStreams, planSubscriptions, problem } from '@protean-ts/server/operations';
import { DLQ_READ_LIMIT } from '../commands/dlq-targets.js';

/** A journey is one request's messages: a few dozen; this bounds a runaway correlation id. */
const JOURNEY_ROWS = 500;

export interface JourneyHandling {
  subscription: string;
  role: string;
  /** `handled`: the checkpoint reached this message; `passed`: moved past without handling it; `dead-lettered`; `waiting`. */
  state: 'handled' | 'passed' | 'dead-lettered' | 'waiting';
  /**
   * When: the checkpoint's last move when it stopped exactly at this message (`exact`), otherwise
   * the last move of the checkpoint, at or after the handling; the passing or the failure time.
   */
  at: string | null;
  exact: boolean;
  detail: string | null;
}

export interface JourneyStep {
  database: string;
  outboxId: string;
  messageId: string;
  messageType: string;
  stream: string;
  partitionKey: string;
  sequence: number;
  status: string;
  causationId: string | null;
  createdAt: string;
  publishedAt: string | null;
  lastError: string | null;
  handlings: JourneyHandling[];
}

export interface MessageJourney {
  correlationId: string;
  steps: JourneyStep[];
  /** Outboxes or the inbox that could not be read (or an inbox that is off), and why. */
  unread: string[];
}

export async function messageJourney(domain: Domain, correlationId: string): Promise<MessageJourney> {
  const unread: string[] = [];
  const perDatabase = await Promise.all(
    managedDatabases(domain).map(async ({ name, provider }): Promise<JourneyStep[]> => {
      try {
        return (await provider.outbox.list({ correlationId, limit: JOURNEY_ROWS })).map((row) => stepOf(name, row));
      } catch (error) {
        unread.push(`outbox of ${name}: ${problem(error)}`);
        return [];
      }
    }),
  );
  const steps = perDatabase.flat().sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  await addHandlings(domain, steps, unread);
  return { correlationId, steps, unread };
}

function stepOf(database: string, row: OutboxRow): JourneyStep {
  return {
    database,
    outboxId: row.id,
    messageId: row.messageId,
    messageType: row.messageType,
    stream: row.streamName,
    partitionKey: row.partitionKey,
    sequence: row.sequence,
    status: row.status,
    causationId: row.causationId ?? null,
    createdAt: row.createdAt.toISOString(),
    publishedAt: row.publishedAt?.toISOString() ?? null,
    lastError: row.lastError,
    handlings: [],
  };
}

async function addHandlings(domain: Domain, steps: JourneyStep[], unread: string[]): Promise<void> {
  if (steps.length === 0) return;
  const inbox = domain.runtime.messages.inbox;
  if (!inbox) {
    unread.push('inbox: off ([inbox] enabled = false)');
    return;
  }
  let positions: { checkpoints: InboxCheckpointRecord[]; passed: InboxPassedRecord[] };
  try {
    positions = await inbox.positions([...new Set(steps.map((s) => s.partitionKey))]);
  } catch (error) {
    unread.push(`inbox of ${domain.config.inbox.database}: ${problem(error)}`);
    return;
  }
  const plan = planSubscriptions(domain).filter((p) => p.source === 'stream');
  const letters = await deadLettersById(domain, plan, steps);
  for (const step of steps) {
    for (const entry of plan) {
      if (entry.stream !== step.stream || !domain.registry.handlerMethodsOf(entry.cls).has(step.messageType)) continue;
      const letter = letters.get(`${entry.group}\u0000${step.messageId}`);
      const pass = positions.passed.find((p) => p.subscription === entry.group && p.key === step.partitionKey && p.sequence === step.sequence);
      const checkpoint = positions.checkpoints.find((c) => c.subscription === entry.group && c.key === step.partitionKey);
      let handling: Omit<JourneyHandling, 'subscription' | 'role'>;
      if (letter) handling = { state: 'dead-lettered', at: letter.failedAt, exact: true, detail: letter.error };
      else if (pass) handling = { state: 'passed', at: pass.passedAt.toISOString(), exact: true, detail: pass.reason };
      else if (checkpoint && checkpoint.sequence >= step.sequence) {
        handling = { state: 'handled', at: checkpoint.updatedAt.toISOString(), exact: checkpoint.sequence === step.sequence, detail: null };
      } else
        handling = {
          state: 'waiting',
          at: null,
          exact: false,
          detail: checkpoint ? `checkpoint at ${checkpoint.sequence}` : 'no checkpoint for this key yet',
        };
      step.handlings.push({ subscription: entry.group, role: entry.role, ...handling });
    }
  }
}

/** The dead letters of the journey's streams (every partition's), by subscription and message id. */
async function deadLettersById(
  domain: Domain,
  plan: ReturnType<typeof planSubscriptions>,
  steps: readonly JourneyStep[],
): Promise<Map<string, { failedAt: string; error: string }>> {
  const found = new Map<string, { failedAt: string; error: string }>();
  const ids = new Set(steps.map((s) => s.messageId));
  const streams = new Map<string, { broker: string; stream: string }>();
  for (const entry of plan) {
    if (!steps.some((s) => s.stream === entry.stream)) continue;
    for (const stream of plannedStreams(domain, entry)) streams.set(`${entry.broker}\u0000${stream}`, { broker: entry.broker, stream });
  }
  for (const { broker, stream } of streams.values()) {
    for (const letter of await domain.runtime.infrastructure.broker(broker).listDeadLetters(stream, { count: DLQ_READ_LIMIT })) {
      const id = letter.envelope?.metadata.headers.id;
      if (id && ids.has(id)) found.set(`${letter.group}\u0000${id}`, { failedAt: letter.failedAt, error: letter.error });
    }
  }
  return found;
}
