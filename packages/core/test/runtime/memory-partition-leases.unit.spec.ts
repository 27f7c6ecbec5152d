import { describe, expect, it } from 'vitest';
import { assignedPartitions, MemoryPartitionLeases, partitionOf, partitionStream, partitionStreams } from '../../src/index.js';
import { describePartitionLeaseConformance } from '@protean-ts/conformance';

describePartitionLeaseConformance('memory', { open: async () => new MemoryPartitionLeases() });

describe('assignedPartitions', () => {
  it('deals partitions round the sorted members, shares differing by at most one', () => {
    const members = ['c', 'a', 'b'];
    expect(assignedPartitions(members, 'a', 8)).toEqual([0, 3, 6]);
    expect(assignedPartitions(members, 'b', 8)).toEqual([1, 4, 7]);
    expect(assignedPartitions(members, 'c', 8)).toEqual([2, 5]);
    expect(assignedPartitions(members, 'z', 8)).toEqual([]);
  });
});

describe('stream partitions', () => {
  it('names partition 0 after the stream itself and the others with a #', () => {
    expect(partitionStream('shop::order', 0)).toBe('shop::order');
    expect(partitionStream('shop::order:command', 3)).toBe('shop::order:command#3');
    expect(partitionStreams('s', 3)).toEqual(['s', 's#1', 's#2']);
    expect(partitionStreams('s', 1)).toEqual(['s']);
  });

  it('hashes a key to the same partition every time, spread over all of them', () => {
    expect(partitionOf('shop::order-1', 1)).toBe(0);
    // Pinned values: a change of hash would move every key of a running system.
    expect([partitionOf('shop::order-1', 16), partitionOf('shop::order-2', 16), partitionOf('', 16)]).toEqual([9, 0, 0x811c9dc5 % 16]);
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i += 1) counts[partitionOf(`shop::order-${i}`, 8)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });
});
