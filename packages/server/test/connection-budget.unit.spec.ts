import { describe, expect, it } from 'vitest';
import { connectionBudgets } from '../src/index.js';

describe('connectionBudgets', () => {
  it("sums every worker's pool and LISTEN connection per database, and skips in-process databases", () => {
    const budgets = connectionBudgets(4, {
      default: { provider: 'postgresql', managed: true, pool_size: 10 },
      reporting: { provider: 'postgresql', managed: false, pool_size: 5 },
      scratch: { provider: 'memory', managed: true, pool_size: 10 },
    });
    expect(budgets).toEqual([
      { database: 'default', workers: 4, poolSize: 10, listenConnections: 1, total: 44 },
      { database: 'reporting', workers: 4, poolSize: 5, listenConnections: 0, total: 20 },
    ]);
  });
});
