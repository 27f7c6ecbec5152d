/**
 * What a database adapter must do for one aggregate type. The user-facing `Repository` (core)
 * adds unit-of-work tracking and errors on top; adapters only move state in and out.
 */
import type { ClassRef, FieldDefinition } from '../fields/field-definition.js';

/** Everything an adapter needs to persist one aggregate, built from the registry. */
export interface AggregateSchema<T = object> {
  readonly aggregate: ClassRef<T>;
  /** Class name, e.g. `Order`. */
  readonly name: string;
  /** Table name, snake_case by default. */
  readonly tableName: string;
  /** The `[databases.<name>]` key. */
  readonly provider: string;
  readonly identityField: string;
  readonly fields: readonly FieldDefinition[];
  /** Child entities reachable through hasOne/hasMany fields, recursively. */
  readonly entities: readonly EntitySchema[];
}

export interface EntitySchema {
  readonly entity: ClassRef;
  readonly name: string;
  readonly tableName: string;
  readonly identityField: string;
  readonly fields: readonly FieldDefinition[];
}

export type FilterOperator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$nin' | '$like';
export type FieldFilter = unknown | Partial<Record<FilterOperator, unknown>>;
/** `{ status: 'PENDING', total: { $gte: 10 }, customer: { $like: 'A%' } }`; keys are field names. */
export type Filter<T = object> = { [K in keyof T]?: FieldFilter } & Record<string, FieldFilter>;

export interface QuerySpec<T = object> {
  filter?: Filter<T>;
  orderBy?: Record<string, 'asc' | 'desc'>;
  limit?: number;
  offset?: number;
}

export interface AggregateDao<T> {
  /** The aggregate with its children, or undefined. */
  get(id: string): Promise<T | undefined>;
  /**
   * Inserts when `expectedVersion` is -1, else updates with compare-and-set on `_version`.
   * Stores the aggregate at `expectedVersion + 1`. Throws `ExpectedVersionError` on a lost race.
   */
  save(aggregate: T, expectedVersion: number): Promise<void>;
  query(spec: QuerySpec<T>): Promise<T[]>;
  count(filter?: Filter<T>): Promise<number>;
  /** Deletes the aggregate and its children; false when it was not there. */
  delete(id: string): Promise<boolean>;
}
