/**
 * Turns row ids into one `bigint[]` literal parameter, refusing anything that is not an id, so
 * a statement handles any number of ids with a single placeholder.
 */
import { InvalidOutboxIdError } from './invalid-outbox-id.error.js';

export function idArrayLiteral(ids: readonly string[]): string {
  for (const id of ids) {
    if (typeof id !== 'string' || !/^[0-9]{1,19}$/.test(id)) throw new InvalidOutboxIdError(id);
  }
  return `{${ids.join(',')}}`;
}
