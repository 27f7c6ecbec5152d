/**
 * The committed data of one memory provider: table → id → record. Records hold plain copies
 * (never the caller's objects) and the stored version. `applyWrites` checks every staged write
 * against the committed state before changing anything, so a commit is all or nothing.
 */
import { ExpectedVersionError } from '../../errors/expected-version.error.js';
import { UniqueViolationError } from '../../errors/unique-violation.error.js';
import type { MemoryRecord, StagedPut, StagedWrite } from './staged-writes.js';

export type { PlainRecord, MemoryRecord } from './staged-writes.js';

export class MemoryTables {
  private readonly tables = new Map<string, Map<string, MemoryRecord>>();

  table(name: string): Map<string, MemoryRecord> {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    return table;
  }

  has(name: string): boolean {
    return this.tables.has(name);
  }

  drop(name: string): boolean {
    return this.tables.delete(name);
  }

  clear(name: string): void {
    this.tables.get(name)?.clear();
  }

  /** Validates then applies staged writes of several tables; throws before any change on conflict. */
  applyWrites(writes: ReadonlyMap<string, ReadonlyMap<string, StagedWrite>>): void {
    for (const [tableName, staged] of writes) this.check(tableName, staged);
    for (const [tableName, staged] of writes) {
      const table = this.table(tableName);
      for (const [id, write] of staged) {
        if (write.kind === 'delete') table.delete(id);
        else table.set(id, write.record);
      }
    }
  }

  private check(tableName: string, staged: ReadonlyMap<string, StagedWrite>): void {
    const table = this.table(tableName);
    for (const [id, write] of staged) {
      if (write.kind !== 'put') continue;
      const current = table.get(id)?.version ?? null;
      if (current !== write.baseVersion) {
        throw new ExpectedVersionError(write.aggregate, id, write.baseVersion ?? -1, current);
      }
      this.checkUnique(table, staged, id, write);
    }
  }

  // Another transaction may have committed the same unique value since this one staged it.
  private checkUnique(table: Map<string, MemoryRecord>, staged: ReadonlyMap<string, StagedWrite>, id: string, write: StagedPut): void {
    for (const field of write.uniqueFields) {
      const value = write.record.data[field];
      if (value === undefined || value === null) continue;
      for (const [otherId, other] of table) {
        if (otherId === id || staged.has(otherId)) continue;
        if (sameValue(other.data[field], value)) throw new UniqueViolationError(write.aggregate, field, value);
      }
    }
  }
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}
