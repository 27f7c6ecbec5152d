/** Orders: the Order aggregate, checkout, and the commands that move an order along. */
export { LineItem } from './line-item.js';
export { Order, OrderLine, OrderPlaced, OrderConfirmed, OrderPaid, OrderCancelled, ORDER_STATUSES, type OrderStatus, type NewOrder } from './order.js';
export { PlaceOrder } from './place-order.command.js';
export { ConfirmOrder } from './confirm-order.command.js';
export { MarkOrderPaid } from './mark-order-paid.command.js';
export { CancelOrder } from './cancel-order.command.js';
export { OrderCommands } from './order.command-handler.js';
export { OrderRepository } from './order.repository.js';
export { Checkout, type Cart } from './checkout.application-service.js';
export { OrdersOfCustomer, OrderQueries, type OrderSummary } from './order.queries.js';
