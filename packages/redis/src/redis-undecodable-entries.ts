/**
 * Decoding a batch entry by entry: an entry without a valid envelope (a foreign producer, a
 * corrupted write) must neither fail the whole `read`/`reclaim` (leaving the valid messages
 * pending forever) nor vanish. It goes to the dead-letter stream, acked in the same script.
 * When even that fails it stays pending for the next reclaim, up to a bound: an entry must not
 * be reclaimed forever.
 */
import type { Logger, ReceivedMessage } from '@protean-ts/core';
import type { RedisDeadLetterQueue } from './redis-dead-letter-queue.js';
import type { RawEntry } from './redis-entry-codec.js';
import type { RedisEntryFormat } from './redis-entry-format.js';
import { UndecodableEntryError } from './undecodable-entry.error.js';

/** Deliveries of an undecodable entry whose dead letter could not be written before it is acked without one. */
export const UNDECODABLE_DEAD_LETTER_DELIVERIES = 5;

/** The decodable entries as messages, in order; the others are dead-lettered on the way. */
export async function decodeOrDeadLetter(
  stream: string,
  group: string,
  entries: readonly RawEntry[],
  deliveryCounts: readonly number[],
  deadLetters: RedisDeadLetterQueue,
  log: Logger,
  format: RedisEntryFormat,
): Promise<ReceivedMessage[]> {
  const messages: ReceivedMessage[] = [];
  for (const [i, entry] of entries.entries()) {
    const decoded = format.decode(stream, entry, deliveryCounts[i] ?? 1);
    if (decoded.ok) {
      messages.push(decoded.message);
      continue;
    }
    const error = new UndecodableEntryError(stream, group, decoded.id, decoded.problem, format.expects);
    const where = { stream, group, entryId: decoded.id, problem: decoded.problem };
    try {
      await deadLetters.addUndecodable(stream, group, decoded, error.message, deliveryCounts[i] ?? 1);
      log.warn('undecodable stream entry moved to the dead-letter stream', { ...where, deadLetterStream: `${stream}:dlq` });
    } catch (err) {
      const deliveries = deliveryCounts[i] ?? 1;
      if (deliveries < UNDECODABLE_DEAD_LETTER_DELIVERIES) {
        // Not acked: it stays pending, and the next reclaim that takes it tries again.
        log.error('undecodable stream entry could not be dead-lettered; it stays pending', { ...where, deliveries, error: err });
        continue;
      }
      await dropUndecodable(stream, group, decoded.id, deadLetters, log, { ...where, deliveries, deadLetterError: err });
    }
  }
  return messages;
}

/** The last resort: acked without a dead letter, with an ERROR naming it; it stays in the stream until trimmed. */
async function dropUndecodable(
  stream: string,
  group: string,
  id: string,
  deadLetters: RedisDeadLetterQueue,
  log: Logger,
  where: Record<string, unknown>,
): Promise<void> {
  try {
    await deadLetters.ackWithoutLetter(stream, group, id);
    log.error('undecodable stream entry dropped: it could not be dead-lettered on any of its deliveries; acked so it is not reclaimed forever', {
      ...where,
      hint: `the entry stays in the stream until trimmed: read it with XRANGE by its id (${id}); fix what makes dead-lettering fail (see deadLetterError)`,
    });
  } catch (err) {
    log.error('undecodable stream entry could neither be dead-lettered nor acked; it stays pending', { ...where, error: err });
  }
}
