/**
 * Drives an order from placement to payment with commands: reserve its stock, confirm it, charge
 * it, and mark it paid; or cancel it when stock is short, the payment is declined, or the payment
 * does not come within SHOP_PAYMENT_TIMEOUT (payment-timeout.ts). One instance per order,
 * correlated by `orderId`, which every event it follows carries.
 *
 *   OrderPlaced      → ReserveStock
 *   StockReserved    → ConfirmOrder
 *   ReservationFailed→ CancelOrder (the reason)                                  ends
 *   OrderConfirmed   → ChargePayment, and a PaymentTimedOut due after the timeout
 *   PaymentCaptured  → MarkOrderPaid                        ends, dropping the timeout
 *   PaymentDeclined  → CancelOrder ("payment declined: …"), ReleaseStock         ends, dropping the timeout
 *   PaymentTimedOut  → CancelOrder ("payment timed out"), ReleaseStock           ends
 *
 * Each step is sent only after the previous one's event, so no event can reach the manager
 * before the instance it belongs to exists. A timeout needs event_processing = "async" (the
 * outbox publishes it, a subscription brings it back), which both of the shop's environments use.
 */
import { BaseProcessManager, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Order, OrderConfirmed, OrderPlaced } from '../orders/order.js';
import { CancelOrder } from '../orders/cancel-order.command.js';
import { ConfirmOrder } from '../orders/confirm-order.command.js';
import { MarkOrderPaid } from '../orders/mark-order-paid.command.js';
import { Reservation, ReservationFailed, StockReserved } from '../inventory/reservation.js';
import { ReleaseStock } from '../inventory/release-stock.command.js';
import { ReserveStock } from '../inventory/reserve-stock.command.js';
import { quantitiesBySku } from '../inventory/stock-allocation.js';
import { Payment, PaymentCaptured, PaymentDeclined } from '../payments/payment.js';
import { ChargePayment } from '../payments/charge-payment.command.js';
import { PaymentTimedOut } from './payment-timed-out.event.js';
import { paymentTimeoutMs } from './payment-timeout.js';

export type FulfilmentStage = 'reserving' | 'confirming' | 'awaiting-payment' | 'paid' | 'cancelled';

export const PAYMENT_TIMED_OUT = 'payment timed out';

@domain.processManager({ aggregates: [Order, Reservation, Payment] })
export class OrderFulfilment extends BaseProcessManager {
  orderId!: string;
  stage: FulfilmentStage = 'reserving';

  @handle(OrderPlaced, { start: true, correlate: 'orderId' })
  placed(event: OrderPlaced): void {
    this.send(ReserveStock.create({ orderId: this.orderId, items: quantitiesBySku(event.items) }));
  }

  @handle(StockReserved, { correlate: 'orderId' })
  stockReserved(): void {
    this.stage = 'confirming';
    this.send(ConfirmOrder.create({ orderId: this.orderId }));
  }

  @handle(ReservationFailed, { correlate: 'orderId', end: true })
  stockUnavailable(event: ReservationFailed): void {
    this.cancel(event.reason, { holdsStock: false });
  }

  @handle(OrderConfirmed, { correlate: 'orderId' })
  confirmed(event: OrderConfirmed): void {
    this.stage = 'awaiting-payment';
    this.send(ChargePayment.create({ orderId: this.orderId, amount: event.amount, paymentMethod: event.paymentMethod }));
    const waitedMs = paymentTimeoutMs();
    this.scheduleTimeout(PaymentTimedOut.create({ orderId: this.orderId, waitedMs }), { after: waitedMs });
  }

  @handle(PaymentCaptured, { correlate: 'orderId', end: true })
  paymentCaptured(event: PaymentCaptured): void {
    this.stage = 'paid';
    this.send(MarkOrderPaid.create({ orderId: this.orderId, paymentReference: event.reference }));
  }

  @handle(PaymentDeclined, { correlate: 'orderId', end: true })
  paymentDeclined(event: PaymentDeclined): void {
    this.cancel(`payment declined: ${event.reason}`, { holdsStock: true });
  }

  @handle(PaymentTimedOut, { correlate: 'orderId', end: true })
  paymentTimedOut(): void {
    this.cancel(PAYMENT_TIMED_OUT, { holdsStock: true });
  }

  private cancel(reason: string, { holdsStock }: { holdsStock: boolean }): void {
    this.stage = 'cancelled';
    this.send(CancelOrder.create({ orderId: this.orderId, reason }));
    if (holdsStock) this.send(ReleaseStock.create({ orderId: this.orderId }));
  }
}
