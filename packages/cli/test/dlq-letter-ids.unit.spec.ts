/**
 * Dead-letter ids are per partition: two partitions' dead-letter streams can each hold a letter
 * with the same id (both dead-lettered in the same millisecond, seen in CI). A replay by id must
 * then refuse rather than pick one of them by chance.
 */
import { describe, expect, it } from 'vitest';
import { lettersWithIds, type PartitionLetter } from '../src/commands/dlq-targets.js';

function letter(id: string, partitionStream: string): PartitionLetter {
  return { id, originalId: '1-0', stream: partitionStream, group: 'Receipts', envelope: null, error: 'boom', failedAt: '', deliveryCount: 3, partitionStream };
}

describe('lettersWithIds', () => {
  const letters = [letter('5-0', 'shop::order#1'), letter('5-0', 'shop::order#2'), letter('6-0', 'shop::order#2')];

  it('chooses a letter whose id only one partition holds', () => {
    expect(lettersWithIds(letters, ['6-0'])).toEqual({ chosen: [letters[2]], unknown: [], ambiguous: [] });
  });

  it('names an id held by several partitions as ambiguous, with the partitions holding it', () => {
    expect(lettersWithIds(letters, ['5-0', '7-0'])).toEqual({
      chosen: [],
      unknown: ['7-0'],
      ambiguous: [{ id: '5-0', streams: ['shop::order#1', 'shop::order#2'] }],
    });
  });
});
