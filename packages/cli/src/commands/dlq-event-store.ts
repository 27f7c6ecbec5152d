/**
 * `protean-ts dlq` for event-store subscriptions. Their dead letters are rows beside the events
 * (`protean_event_store_dead_letters`) that point at the event, which never leaves its stream.
 * A replay runs the subscription's handler on the event here, in this process, through the
 * inbox (so it counts once, even if the subscription also got to it), and removes the letter
 * once the handler succeeded; a purge removes the letters without handling.
 */
import { envelopeOf, withPosition, type Domain, type EventStore, type EventStoreDeadLetter } from '@protean-ts/core';
import { errorText, eventStoreInboxName, type PlannedSubscription } from '@protean-ts/server/operations';
import { CliError } from '../cli-error.js';
import type { CliIO } from '../cli-context.js';
import { echoIds } from '../user-supplied-ids.js';

const READ_LIMIT = 10_000;

function storeOf(domain: Domain): EventStore {
  const database = domain.config.event_store.database;
  const provider = domain.providers.get(database);
  if (!provider) throw new CliError(`event_store.database "${database}" has no [databases.${database}] in domain.toml`);
  return provider.eventStore;
}

export async function eventStoreLetterCounts(
  domain: Domain,
  subscriptions: readonly PlannedSubscription[],
): Promise<{ subscription: string; category: string; total: number }[]> {
  const states = await storeOf(domain).subscriptions.states();
  return subscriptions.map((entry) => ({
    subscription: entry.group,
    category: entry.stream,
    total: states.find((s) => s.subscription === entry.group)?.deadLetters ?? 0,
  }));
}

export async function listEventStoreLetters(domain: Domain, io: CliIO, entry: PlannedSubscription, options: { limit: number; json?: boolean }): Promise<void> {
  const letters = await storeOf(domain).subscriptions.deadLetters(entry.group, READ_LIMIT);
  const shown = letters.slice(0, options.limit);
  if (options.json) {
    io.stdout(
      `${JSON.stringify({ subscription: entry.group, category: entry.stream, source: 'event_store', total: letters.length, letters: shown }, null, 2)}\n`,
    );
    return;
  }
  for (const letter of shown) {
    io.stdout(
      `${letter.globalPosition}  ${letter.streamName}@${letter.position}  ${letter.type} ${letter.messageId}  failed ${letter.deadLetteredAt.toISOString()}\n`,
    );
    io.stdout(`    ${letter.error.split('\n')[0]}\n`);
  }
  io.stdout(
    `dlq list: ${letters.length} dead ${plural(letters.length)} for event-store subscription ${entry.group} (category ${entry.stream})${letters.length > shown.length ? `, first ${shown.length} shown (--limit)` : ''}\n`,
  );
}

export async function replayEventStoreLetters(domain: Domain, io: CliIO, entry: PlannedSubscription, ids: string[] | undefined): Promise<void> {
  const store = storeOf(domain);
  let letters = await store.subscriptions.deadLetters(entry.group, READ_LIMIT);
  if (ids) {
    const known = new Set(letters.map((l) => String(l.globalPosition)));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) throw new CliError(`dlq replay: no dead letter ${echoIds(unknown)} for ${entry.group}; see \`protean-ts dlq list ${entry.group}\``);
    letters = letters.filter((l) => ids.includes(String(l.globalPosition)));
  }
  if (letters.length === 0) {
    io.stdout(`dlq replay: nothing to replay for ${entry.group}\n`);
    return;
  }
  let handled = 0;
  const failed: string[] = [];
  for (const [i, letter] of letters.entries()) {
    const outcome = await replayOne(domain, store, entry, letter).catch((error: unknown) => error);
    if (typeof outcome === 'string') {
      await store.subscriptions.removeDeadLetters(entry.group, [letter.globalPosition]);
      handled += 1;
      if (outcome !== 'handled') io.stderr(`note: ${letter.globalPosition} (${letter.streamName}@${letter.position}): ${outcome}\n`);
    } else {
      const text = errorText(outcome, 4000);
      failed.push(`${letter.globalPosition}: ${text.split('\n')[0]}`);
      await store.subscriptions.addDeadLetter({ ...letter, error: text });
    }
    if (letters.length > 20 && (i + 1) % 20 === 0) io.stderr(`dlq replay: ${i + 1}/${letters.length}\n`);
  }
  io.stdout(`dlq replay: ${handled} of ${letters.length} dead ${plural(letters.length)} handled by ${entry.cls.name} and removed\n`);
  if (failed.length) {
    throw new CliError(`dlq replay: ${failed.length} failed again and stay dead letters:\n  ${failed.join('\n  ')}`);
  }
}

/** The handler's outcome as words: `handled`, or why nothing ran (still removed: nothing is left to do). */
async function replayOne(domain: Domain, store: EventStore, entry: PlannedSubscription, letter: EventStoreDeadLetter): Promise<string> {
  const [event] = await store.readStream(letter.streamName, { from: letter.position, limit: 1 });
  if (!event || event.globalPosition !== letter.globalPosition) {
    throw new Error(`event ${letter.globalPosition} is no longer at ${letter.streamName}@${letter.position} in the event store`);
  }
  const envelope = withPosition(envelopeOf(event), { key: event.streamName, sequence: event.position + 1 });
  // A replay id of its own: the inbox tells it from the delivery that was dead-lettered.
  const outcome = await domain.handleMessage(envelope, {
    handler: entry.cls,
    inbox: { subscription: eventStoreInboxName(entry.group), brokerMessageId: `replay:${letter.globalPosition}:${Date.now()}` },
  });
  switch (outcome) {
    case 'handled':
    case 'handled-late':
      return 'handled';
    case 'duplicate':
      return 'the inbox has it as handled already; nothing ran';
    case 'skipped':
      return `${entry.cls.name} does not handle ${event.type}; nothing ran`;
    default:
      throw new Error(`not handled (${outcome}): an earlier event of ${letter.streamName} is not handled yet; replay that first`);
  }
}

export async function purgeEventStoreLetters(
  domain: Domain,
  io: CliIO,
  entry: PlannedSubscription,
  confirm: (question: string) => Promise<void>,
  yes: boolean,
): Promise<void> {
  const store = storeOf(domain);
  const letters = await store.subscriptions.deadLetters(entry.group, READ_LIMIT);
  if (letters.length === 0) {
    io.stdout(`dlq purge: no dead letters for event-store subscription ${entry.group}\n`);
    return;
  }
  if (!yes) await confirm(`Delete ${letters.length} dead ${plural(letters.length)} of event-store subscription ${entry.group} (the events stay in the store)?`);
  const purged = await store.subscriptions.removeDeadLetters(
    entry.group,
    letters.map((l) => l.globalPosition),
  );
  io.stdout(`dlq purge: ${purged} dead ${plural(purged)} of ${entry.group} deleted; the events stay in their streams\n`);
}

function plural(n: number): string {
  return n === 1 ? 'letter' : 'letters';
}
