/**
 * The shop on the embedded default: `npm run example` (or `npx tsx src/main.ts` in a project of
 * your own). Seeds the warehouse, places a few orders and prints each order's timeline as the
 * order-fulfilment process manager moves it through inventory and payments with commands, then
 * a summary.
 *
 * Everything runs in this process: domain.toml asks for the memory database and the in-process
 * broker, and this program starts the server's Engine next to the domain (EmbeddedServer), which
 * relays the outbox and runs the handlers, the process manager and its payment timeouts, as
 * `protean-ts server` does in production. With PROTEAN_ENV=production the same domain runs on
 * PostgreSQL and Redis, and `protean-ts server --workers N` handles the events instead.
 */
import { configureLogging } from '@protean-ts/core';
import {
  Address,
  CatalogueEntry,
  Checkout,
  DECLINED_CARD,
  domain,
  Money,
  OrderPlaced,
  OrderRepository,
  OrderTimeline,
  Payment,
  paymentTimeoutMs,
  ReceiveStock,
  SILENT_CARD,
  StockItem,
  type Cart,
} from './domain.js';
import { EmbeddedServer } from './embedded-server.js';

const deliveries = [
  { deliveryId: 'delivery-1', sku: 'CUP-ESPRESSO', name: 'Espresso cup', price: Money.of(6.5), quantity: 12 },
  { deliveryId: 'delivery-2', sku: 'GRINDER-BURR', name: 'Burr grinder', price: Money.of(89), quantity: 2 },
  { deliveryId: 'delivery-3', sku: 'KETTLE-GOOSE', name: 'Gooseneck kettle', price: Money.of(45), quantity: 1 },
];

const ghent = Address.create({ street: 'Korenmarkt 1', city: 'Ghent', postalCode: '9000', country: 'BE' });
const carts: Cart[] = [
  {
    customerId: 'ada',
    items: [
      { sku: 'CUP-ESPRESSO', quantity: 2 },
      { sku: 'GRINDER-BURR', quantity: 1 },
    ],
    shippingAddress: ghent,
    paymentMethod: 'card-visa',
  },
  { customerId: 'brian', items: [{ sku: 'KETTLE-GOOSE', quantity: 1 }], shippingAddress: ghent, paymentMethod: 'card-mastercard' },
  // Only one kettle was delivered, and brian has it: inventory rejects, the order is cancelled.
  {
    customerId: 'chloe',
    items: [
      { sku: 'KETTLE-GOOSE', quantity: 1 },
      { sku: 'CUP-ESPRESSO', quantity: 4 },
    ],
    shippingAddress: ghent,
    paymentMethod: 'card-visa',
  },
  // The gateway declines this card: the order is cancelled and inventory gives the stock back.
  { customerId: 'dmitri', items: [{ sku: 'GRINDER-BURR', quantity: 1 }], shippingAddress: ghent, paymentMethod: DECLINED_CARD },
  // The gateway takes this charge and never answers: the payment timeout cancels the order.
  { customerId: 'emma', items: [{ sku: 'CUP-ESPRESSO', quantity: 1 }], shippingAddress: ghent, paymentMethod: SILENT_CARD },
];

async function main(): Promise<void> {
  // The framework logs to stderr; keep the demo's output to its story.
  configureLogging({ level: 'warn' });
  await domain.init();
  const server = await EmbeddedServer.start(domain);
  try {
    await tellTheStory(server);
  } finally {
    await server.stop();
  }
  await domain.close();
}

async function tellTheStory(server: EmbeddedServer): Promise<void> {
  console.log(`protean-ts example shop — ${describeSetup()}\n`);

  console.log('Stocking the warehouse');
  for (const delivery of deliveries) {
    const onHand = await domain.process<number>(ReceiveStock.create(delivery));
    await server.drained();
    console.log(`  + ${delivery.quantity} × ${delivery.name} (${delivery.sku}) at ${delivery.price.format()}: ${onHand} on hand`);
  }
  // The warehouse system may report a delivery twice; the goods receipt keyed by its id counts it once.
  const again = await domain.process<number>(ReceiveStock.create(deliveries[0]!));
  console.log(`  = delivery-1 reported again: still ${again} on hand\n`);

  const checkout = new Checkout();
  for (const [i, cart] of carts.entries()) {
    const items = cart.items.map((item) => `${item.quantity} × ${item.sku}`).join(', ');
    console.log(`Order ${i + 1}/${carts.length}: ${cart.customerId} buys ${items}, paying with ${cart.paymentMethod}`);
    if (cart.paymentMethod === SILENT_CARD) console.log(`  (waiting for the payment timeout, ${paymentTimeoutMs() / 1000} s: SHOP_PAYMENT_TIMEOUT)`);
    const orderId = await checkout.placeOrder(cart);
    await server.settled(domain, orderId);
    await printEventChain(orderId);
    await printTimeline(orderId);
  }

  await printSummary();
}

function describeSetup(): string {
  const { databases, brokers, event_processing: events } = domain.config;
  return `database: ${databases.default!.provider}, broker: ${brokers.default!.provider}, event processing: ${events} (the server's Engine in this process)`;
}

/**
 * The messages the order set off, across aggregates, as committed: the events, the commands the
 * process manager sent, and its timeout if it fired. Every one shares the order's correlation id.
 */
async function printEventChain(orderId: string): Promise<void> {
  const committed = await domain.providers.get('default')!.outbox.list({ limit: 10_000 });
  const placed = committed.find((row) => row.messageType === domain.messageTypeOf(OrderPlaced) && row.partitionKey.endsWith(orderId));
  const chain = committed.filter((row) => row.correlationId === placed?.correlationId).map((row) => domain.messageClassFor(row.messageType)?.name);
  console.log(`  messages: ${chain.join(' → ')}`);
}

async function printTimeline(orderId: string): Promise<void> {
  const timeline = await domain.repositoryFor(OrderTimeline).get(orderId);
  for (const [i, entry] of timeline.entries.entries()) console.log(`  ${i + 1} ${entry.step.padEnd(10)} ${entry.note}`);
  console.log('');
}

async function printSummary(): Promise<void> {
  const byStatus = await domain.repositoryFor(OrderRepository).countByStatus();
  const payments = await domain.repositoryFor(Payment).query();
  const captured = payments.filter((p) => p.status === 'CAPTURED').reduce((sum, p) => sum.plus(p.amount), Money.zero());
  const outbox = await domain.providers.get('default')!.outbox.counts();
  const relayed = outbox.published;
  console.log('Summary');
  console.log(
    `  orders    ${Object.entries(byStatus)
      .map(([status, count]) => `${count} ${status.toLowerCase()}`)
      .join(', ')}`,
  );
  console.log(`  payments  ${payments.length} attempted, ${captured.format()} captured`);
  // Stock items are event-sourced: the catalogue (a projection) lists them, each loads by its SKU.
  for (const { sku } of await domain.repositoryFor(CatalogueEntry).query({ orderBy: { sku: 'asc' } })) {
    const item = await domain.repositoryFor(StockItem).get(sku);
    console.log(`  stock     ${sku.padEnd(13)} ${item.onHand} on hand, ${item.reserved} reserved, ${item.available()} available (${item._version + 1} events)`);
  }
  console.log(`  outbox    ${relayed} messages stored with their changes and relayed by the in-process server, ${outbox.pending + outbox.scheduled} left`);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await domain.close();
  process.exitCode = 1;
});
