/** One step of an order as its customer sees it. */
import { BaseValueObject, field } from '@protean-ts/core';
import { domain } from '../shop.js';

export type TimelineStep = 'placed' | 'confirmed' | 'paid' | 'cancelled';

@domain.valueObject()
export class TimelineEntry extends BaseValueObject {
  @field.string({ required: true, choices: ['placed', 'confirmed', 'paid', 'cancelled'] }) step!: TimelineStep;
  @field.string({ required: true, maxLength: 200 }) note!: string;
  /** The step's position in the order's event stream: 0 for placed, then 1, 2, … */
  @field.integer({ required: true, min: 0 }) position!: number;
  /** When the order changed. */
  @field.datetime({ required: true }) occurredAt!: Date;
  /** When this entry was written, for measuring how far the read model trails the orders. */
  @field.datetime({ autoNow: true }) recordedAt?: Date;
}
