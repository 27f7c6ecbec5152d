/** Orders: the Order aggregate, checkout, and the reactions to inventory's and payments' answers. */
export { LineItem } from './line-item.js';
export { Order, OrderLine, OrderPlaced, OrderConfirmed, OrderPaid, OrderCancelled, ORDER_STATUSES, type OrderStatus, type NewOrder } from './order.js';
export { PlaceOrder } from './place-order.command.js';
export { OrderCommands } from './order.command-handler.js';
export { OrderRepository } from './order.repository.js';
export { StockOutcomes } from './stock-outcomes.event-handler.js';
export { PaymentOutcomes } from './payment-outcomes.event-handler.js';
export { Checkout, type Cart } from './checkout.application-service.js';
export { OrdersOfCustomer, OrderQueries, type OrderSummary } from './order.queries.js';
