/**
 * Decoding a batch entry by entry: an entry without a valid envelope (a foreign producer, a
 * corrupted write) must neither fail the whole `read`/`reclaim` (leaving the valid messages
 * pending forever) nor vanish. It goes to the dead-letter stream, acked in the same script.
 */
import type { Logger, ReceivedMessage } from '@protean-ts/core';
import type { RedisDeadLetterQueue } from './redis-dead-letter-queue.js';
import { decodeEntry, type RawEntry } from './redis-entry-codec.js';
import { UndecodableEntryError } from './undecodable-entry.error.js';

/** The decodable entries as messages, in order; the others are dead-lettered on the way. */
export async function decodeOrDeadLetter(
  stream: string,
  group: string,
  entries: readonly RawEntry[],
  deliveryCounts: readonly number[],
  deadLetters: RedisDeadLetterQueue,
  log: Logger,
): Promise<ReceivedMessage[]> {
  const messages: ReceivedMessage[] = [];
  for (const [i, entry] of entries.entries()) {
    const decoded = decodeEntry(stream, entry, deliveryCounts[i] ?? 1);
    if (decoded.ok) {
      messages.push(decoded.message);
      continue;
    }
    const error = new UndecodableEntryError(stream, group, decoded.id, decoded.problem);
    const where = { stream, group, entryId: decoded.id, problem: decoded.problem };
    try {
      await deadLetters.addUndecodable(stream, group, decoded, error.message, deliveryCounts[i] ?? 1);
      log.warn('undecodable stream entry moved to the dead-letter stream', { ...where, deadLetterStream: `${stream}:dlq` });
    } catch (err) {
      // Not acked: it stays pending, and the next reclaim that takes it tries again.
      log.error('undecodable stream entry could not be dead-lettered; it stays pending', { ...where, error: err });
    }
  }
  return messages;
}
