/** Payments: one Payment per confirmed order, charged through the gateway. */
export { Payment, PaymentCaptured, PaymentDeclined, type PaymentStatus } from './payment.js';
export { chargeCard, CARD_LIMIT, DECLINED_CARD, type GatewayResult } from './payment-gateway.js';
export { PaymentProcessor } from './payment-processor.event-handler.js';
