/**
 * The stock held for one order, identified by the order's id: an order has one reservation.
 * REJECTED when some item was short (nothing is held then); RELEASED when the order was
 * cancelled after all.
 */
import { BaseAggregate, BaseEvent, field } from '@protean-ts/core';
import { domain } from '../shop.js';
import { ReservedItem } from './reserved-item.js';

export type ReservationStatus = 'RESERVED' | 'REJECTED' | 'RELEASED';

@domain.aggregate()
export class Reservation extends BaseAggregate {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.list({ of: () => ReservedItem, required: true }) items!: ReservedItem[];
  @field.status({ values: ['RESERVED', 'REJECTED', 'RELEASED'], transitions: { RESERVED: ['RELEASED'] }, required: true })
  status!: ReservationStatus;
  @field.string({ maxLength: 200 }) rejectionReason?: string;

  static reserved(orderId: string, items: readonly ReservedItem[]): Reservation {
    const reservation = Reservation.create({ orderId, items: [...items], status: 'RESERVED' });
    reservation.raise(StockReserved.create({ orderId, items: [...items] }));
    return reservation;
  }

  static rejected(orderId: string, items: readonly ReservedItem[], reason: string): Reservation {
    const reservation = Reservation.create({ orderId, items: [...items], status: 'REJECTED', rejectionReason: reason });
    reservation.raise(ReservationFailed.create({ orderId, reason }));
    return reservation;
  }

  release(): void {
    this.status = 'RELEASED';
    this.raise(StockReleased.create({ orderId: this.orderId, items: [...this.items] }));
  }
}

@domain.event({ partOf: Reservation })
export class StockReserved extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.list({ of: () => ReservedItem, required: true }) items!: ReservedItem[];
}

@domain.event({ partOf: Reservation })
export class ReservationFailed extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true }) reason!: string;
}

@domain.event({ partOf: Reservation })
export class StockReleased extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.list({ of: () => ReservedItem, required: true }) items!: ReservedItem[];
}
