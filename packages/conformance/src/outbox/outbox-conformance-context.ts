/**
 * What the parts of the outbox conformance suite share: the provider opened for the current test,
 * its store, a row factory, and helpers to append, claim and compare rows. The fields change
 * before each test, so the parts read them in a `beforeEach` of their own. Imports vitest.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import type { DatabaseProvider, NewOutboxRow, OutboxRow, OutboxStore } from '@protean-ts/core';
import { RowFactory } from './outbox-conformance-fixtures.js';

export interface OutboxConformanceHarness {
  /** A connected provider whose outbox table exists. Called before each test. */
  open(): Promise<DatabaseProvider>;
  /** Called after each test with the provider `open` returned. */
  close?(provider: DatabaseProvider): Promise<void>;
}

export interface OutboxSuiteContext {
  provider: DatabaseProvider;
  store: OutboxStore;
  rows: RowFactory;
  /** Appends the rows in one committed transaction. */
  append(...newRows: NewOutboxRow[]): Promise<void>;
  /** This test's rows (its broker's), optionally of one status. */
  mine(status?: OutboxRow['status']): Promise<OutboxRow[]>;
  claim(workerId: string, limit?: number, lockMs?: number): Promise<OutboxRow[]>;
  /** `<key><sequence>` of each row, e.g. `a1`. */
  labels(found: OutboxRow[]): string[];
  keysOf(found: OutboxRow[]): string[];
  /** Checks the rows carry exactly these labels and returns them in that order. */
  byLabels(found: OutboxRow[], ...wanted: string[]): OutboxRow[];
}

/** Registers the open/close hooks of the suite it is called in and returns the shared context. */
export function outboxSuiteContext(harness: OutboxConformanceHarness): OutboxSuiteContext {
  // Stores may visit partition keys in any order (PostgreSQL walks them round-robin), so
  // results spanning several keys are compared as sorted `<key><sequence>` labels.
  const labels = (found: OutboxRow[]) => found.map((row) => `${row.partitionKey.split('-').pop()}${row.sequence}`);
  const context: OutboxSuiteContext = {
    provider: undefined as unknown as DatabaseProvider,
    store: undefined as unknown as OutboxStore,
    rows: new RowFactory(),
    async append(...newRows) {
      const tx = await context.provider.begin();
      try {
        await context.store.append(tx, newRows);
        await tx.commit();
      } catch (error) {
        // A failed append must not leave a pooled connection inside an open transaction.
        await tx.rollback();
        throw error;
      }
    },
    async mine(status) {
      const all = await context.store.list({ limit: 100000, ...(status ? { status } : {}) });
      return all.filter((row) => row.targetBroker === context.rows.broker);
    },
    claim: (workerId, limit = 10, lockMs = 30000) => context.store.claimBatch({ workerId, targetBroker: context.rows.broker, limit, lockMs }),
    labels,
    keysOf: (found) => labels(found).sort(),
    byLabels(found, ...wanted) {
      const map = new Map(found.map((row) => [labels([row])[0]!, row]));
      expect([...map.keys()].sort()).toEqual([...wanted].sort());
      return wanted.map((label) => map.get(label)!);
    },
  };
  beforeEach(async () => {
    context.provider = await harness.open();
    context.store = context.provider.outbox;
    context.rows = new RowFactory();
  });
  afterEach(async () => {
    await harness.close?.(context.provider);
  });
  return context;
}
