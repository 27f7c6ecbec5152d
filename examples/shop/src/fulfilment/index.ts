/** Fulfilment: the process manager that drives an order through inventory and payments, with a payment timeout. */
export { OrderFulfilment, PAYMENT_TIMED_OUT, type FulfilmentStage } from './order-fulfilment.process-manager.js';
export { PaymentTimedOut } from './payment-timed-out.event.js';
export { paymentTimeoutMs, DEFAULT_PAYMENT_TIMEOUT, PAYMENT_TIMEOUT_VARIABLE } from './payment-timeout.js';
