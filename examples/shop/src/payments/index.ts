/** Payments: one Payment per confirmed order, charged through the gateway. */
export { Payment, PaymentCaptured, PaymentDeclined, type PaymentStatus } from './payment.js';
export { chargeCard, CARD_LIMIT, DECLINED_CARD, SILENT_CARD, type GatewayResult } from './payment-gateway.js';
export { ChargePayment } from './charge-payment.command.js';
export { PaymentCommands } from './payment.command-handler.js';
