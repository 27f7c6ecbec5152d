/**
 * The per-instance state behind field accessors. It sits under a symbol, so user classes can
 * name fields freely and nothing but the element machinery touches it.
 */
import type { MessageMetadata } from '../messages/envelope.js';

export const STATE: unique symbol = Symbol('protean:state');

export interface ElementState {
  /** Field name to current value. */
  values: Record<string, unknown>;
  /** False while the object is being built; validation and invariants start once it is true. */
  ready: boolean;
  /** The entity or aggregate holding this child entity, when attached. */
  owner: object | undefined;
  /** Depth of `atomicChange` blocks open on this aggregate root. */
  atomicDepth: number;
  /** Aggregate version: -1 new, else the stored version. */
  version: number;
  /** Events raised and not yet handed to the unit of work (aggregates only). */
  events: object[];
  /** Messages only: set when raised or received. */
  metadata: MessageMetadata | undefined;
}

export function newState(): ElementState {
  // No prototype: field names are looked up here, and `toString` must not find Object.prototype's.
  return {
    values: Object.create(null) as Record<string, unknown>,
    ready: false,
    owner: undefined,
    atomicDepth: 0,
    version: -1,
    events: [],
    metadata: undefined,
  };
}

interface HasState {
  readonly [STATE]: ElementState;
}

export function stateOf(element: object): ElementState {
  const state = (element as Partial<HasState>)[STATE];
  if (!state) throw new TypeError(`${element?.constructor?.name ?? typeof element} is not a protean-ts element`);
  return state;
}

export function hasState(value: unknown): value is object {
  return typeof value === 'object' && value !== null && STATE in value;
}
