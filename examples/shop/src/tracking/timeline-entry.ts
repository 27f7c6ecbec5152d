/** One step of an order as its customer sees it. */
import { BaseValueObject, field } from '@protean-ts/core';
import { domain } from '../shop.js';

export type TimelineStep = 'placed' | 'confirmed' | 'paid' | 'cancelled';

@domain.valueObject()
export class TimelineEntry extends BaseValueObject {
  @field.string({ required: true, choices: ['placed', 'confirmed', 'paid', 'cancelled'] }) step!: TimelineStep;
  @field.string({ required: true, maxLength: 200 }) note!: string;
  /** The id of the Order event the step reports, to trace it back to the order's stream. */
  @field.identifier({ required: true }) eventId!: string;
  /** When the order changed. */
  @field.datetime({ required: true }) occurredAt!: Date;
  /** When this entry was written, for measuring how far the read model trails the orders. */
  @field.datetime({ autoNow: true }) recordedAt?: Date;
}
