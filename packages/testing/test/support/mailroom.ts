/**
 * A mailroom for the kit's retry test: a parcel's arrival is handled by NotifyRecipient, which
 * fails the first time it runs (the mail server is down) and succeeds on the retry.
 */
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle } from '@protean-ts/core';

export const mailroom = new Domain('Mailroom');
/** Parcel ids each time the handler ran (retries included). */
export const attempts: string[] = [];
export const notified: string[] = [];

@mailroom.aggregate()
export class Parcel extends BaseAggregate {
  @field.string({ required: true }) label!: string;
}

@mailroom.event({ partOf: Parcel })
export class ParcelArrived extends BaseEvent {
  @field.identifier({ required: true }) parcelId!: string;
}

@mailroom.eventHandler({ partOf: Parcel })
export class NotifyRecipient extends BaseEventHandler {
  @handle(ParcelArrived) arrived(event: ParcelArrived): void {
    attempts.push(event.parcelId);
    if (attempts.length === 1) throw new Error('the mail server is down (test)');
    notified.push(event.parcelId);
  }
}
