import { describe, expect, it } from 'vitest';
import { partitionShares } from '../src/commands/partition-shares.js';

describe('what the supervisor says about partitions and workers', () => {
  it('says nothing without partitions', () => {
    expect(partitionShares(4, 1)).toBeNull();
  });

  it('warns when some workers get no partition', () => {
    expect(partitionShares(4, 2)).toMatchObject({ level: 'warn', fields: { workers: 4, partitions: 2, perWorker: '0-1' } });
  });

  it('says when shares are uneven, and what each worker reads when they are even', () => {
    expect(partitionShares(3, 8)).toMatchObject({ level: 'info', msg: expect.stringContaining('do not divide evenly'), fields: { perWorker: '2-3' } });
    expect(partitionShares(4, 8)).toEqual({ level: 'info', msg: 'stream partitions per worker', fields: { workers: 4, partitions: 8, perWorker: '2' } });
  });
});
