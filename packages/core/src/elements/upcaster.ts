/**
 * An upcaster turns the stored data of an old version of an event into the data of the next
 * version, so events written before a schema change still load as today's event class. Stored
 * events are never rewritten: upcasting happens on every read.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageMetadata } from '../messages/envelope.js';

/** What `@domain.upcaster(...)` decorates: a class with a no-argument constructor and `upcast`. */
export interface Upcaster {
  /**
   * The event's data at version `to`, from its data at version `from`. `data` is a copy the
   * upcaster may change and return; `metadata` is the stored envelope's (read it, do not change it).
   */
  upcast(data: Record<string, unknown>, metadata: Readonly<MessageMetadata>): Record<string, unknown>;
}

export interface UpcasterOptions {
  /** The registered event class whose stored data this upcaster transforms. */
  event: ClassRef;
  /** The stored version it reads (`Domain.Class.v<from>`). */
  from: number;
  /** The version it produces; `from < to <= ` the event's current version. */
  to: number;
}

export type UpcasterClass = new () => Upcaster;
