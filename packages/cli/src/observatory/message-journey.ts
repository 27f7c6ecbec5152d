/**
 * A message's journey by correlation id: every outbox row that carries it (the events and
 * commands one request set off, with when each was written and published), and for each the
 * subscriptions whose handler answers its type, with what their inbox says: handled (the
 * checkpoint of its key reached its sequence), passed over (and why), or waiting; plus any dead
 * letter holding it.
 */
import type { Domain } from '@protean-ts/core';
import { INBOX_CHECKPOINTS_TABLE, INBOX_PASSED_TABLE, OUTBOX_TABLE } from '@protean-ts/mikro-orm';
import { plannedStreams, planSubscriptions } from '@protean-ts/server/operations';
import { DLQ_READ_LIMIT } from '../commands/dlq-targets.js';
import { inboxDatabase, outboxDatabases } from './sql-databases.js';

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
  unsupported: string[];
}

interface OutboxJourneyRow {
  id: string;
  message_id: string;
  message_type: string;
  stream_name: string;
  partition_key: string;
  sequence: string;
  status: string;
  causation_id: string | null;
  created_at: Date;
  published_at: Date | null;
  last_error: string | null;
}

export async function messageJourney(domain: Domain, correlationId: string): Promise<MessageJourney> {
  const { sql, unsupported } = outboxDatabases(domain);
  const steps: JourneyStep[] = [];
  for (const { name, db } of sql) {
    const { rows } = await db.execute<OutboxJourneyRow>(
      `SELECT id, message_id, message_type, stream_name, partition_key, sequence, status, causation_id, created_at, published_at, last_error
       FROM ${db.qualify(OUTBOX_TABLE)} WHERE correlation_id = ? ORDER BY created_at, id LIMIT ${JOURNEY_ROWS}`,
      [correlationId],
    );
    for (const row of rows) {
      steps.push({
        database: name,
        outboxId: String(row.id),
        messageId: row.message_id,
        messageType: row.message_type,
        stream: row.stream_name,
        partitionKey: row.partition_key,
        sequence: Number(row.sequence),
        status: row.status,
        causationId: row.causation_id,
        createdAt: new Date(row.created_at).toISOString(),
        publishedAt: row.published_at ? new Date(row.published_at).toISOString() : null,
        lastError: row.last_error,
        handlings: [],
      });
    }
  }
  steps.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  await addHandlings(domain, steps, unsupported);
  return { correlationId, steps, unsupported };
}

async function addHandlings(domain: Domain, steps: JourneyStep[], unsupported: string[]): Promise<void> {
  if (steps.length === 0) return;
  const inbox = inboxDatabase(domain);
  if (!inbox) {
    unsupported.push(`inbox ${domain.config.inbox.database}`);
    return;
  }
  const keys = [...new Set(steps.map((s) => s.partitionKey))];
  const checkpoints = await inbox.execute<{ subscription: string; partition_key: string; last_sequence: string; updated_at: Date }>(
    `SELECT subscription, partition_key, last_sequence, updated_at FROM ${inbox.qualify(INBOX_CHECKPOINTS_TABLE)} WHERE partition_key = ANY(?::text[])`,
    [keys],
  );
  const passed = await inbox.execute<{ subscription: string; partition_key: string; sequence: string; reason: string; passed_at: Date }>(
    `SELECT subscription, partition_key, sequence, reason, passed_at FROM ${inbox.qualify(INBOX_PASSED_TABLE)} WHERE partition_key = ANY(?::text[])`,
    [keys],
  );
  const plan = planSubscriptions(domain).filter((p) => p.source === 'stream');
  const letters = await deadLettersById(domain, plan, steps);
  for (const step of steps) {
    for (const entry of plan) {
      if (entry.stream !== step.stream || !domain.registry.handlerMethodsOf(entry.cls).has(step.messageType)) continue;
      const letter = letters.get(`${entry.group}\u0000${step.messageId}`);
      const pass = passed.rows.find((p) => p.subscription === entry.group && p.partition_key === step.partitionKey && Number(p.sequence) === step.sequence);
      const checkpoint = checkpoints.rows.find((c) => c.subscription === entry.group && c.partition_key === step.partitionKey);
      let handling: Omit<JourneyHandling, 'subscription' | 'role'>;
      if (letter) handling = { state: 'dead-lettered', at: letter.failedAt, exact: true, detail: letter.error };
      else if (pass) handling = { state: 'passed', at: new Date(pass.passed_at).toISOString(), exact: true, detail: pass.reason };
      else if (checkpoint && Number(checkpoint.last_sequence) >= step.sequence) {
        handling = {
          state: 'handled',
          at: new Date(checkpoint.updated_at).toISOString(),
          exact: Number(checkpoint.last_sequence) === step.sequence,
          detail: null,
        };
      } else
        handling = {
          state: 'waiting',
          at: null,
          exact: false,
          detail: checkpoint ? `checkpoint at ${checkpoint.last_sequence}` : 'no checkpoint for this key yet',
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
    for (const letter of await domain.runtime.broker(broker).listDeadLetters(stream, { count: DLQ_READ_LIMIT })) {
      const id = letter.envelope?.metadata.headers.id;
      if (id && ids.has(id)) found.set(`${letter.group}\u0000${id}`, { failedAt: letter.failedAt, error: letter.error });
    }
  }
  return found;
}
