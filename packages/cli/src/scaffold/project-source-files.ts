/**
 * The source files of a new project: one aggregate with its command, event, command handler and
 * event handler (the coffee bar of docs/getting-started.md), a program that sends the command,
 * and a test of the handlers on the embedded default.
 */
import type { ProjectOptions } from './project-options.js';

export function domainModule(project: ProjectOptions): string {
  const domainName =
    project.folder
      .split(/[^a-zA-Z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join('') || 'App';
  return `import { BaseAggregate, BaseCommand, BaseCommandHandler, BaseEvent, BaseEventHandler, Domain, field, handle } from '@protean-ts/core';

// \`root\` lets domain.init() find domain.toml next to the project, wherever the process starts.
export const domain = new Domain('${domainName}', { root: import.meta.url });

@domain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true, maxLength: 60 }) customer!: string;
  @field.string({ required: true, maxLength: 60 }) drink!: string;
  @field.status({ values: ['ORDERED', 'SERVED'], transitions: { ORDERED: ['SERVED'] }, required: true })
  status!: 'ORDERED' | 'SERVED';

  static take(customer: string, drink: string): Order {
    const order = Order.create({ customer, drink, status: 'ORDERED' });
    order.raise(DrinkOrdered.create({ orderId: order.id, drink }));
    return order;
  }

  serve(): void {
    this.status = 'SERVED'; // the status field refuses any move its transitions do not allow
    this.raise(DrinkServed.create({ orderId: this.id }));
  }
}

// Events declare the aggregate they belong to (partOf), which gives them its stream.
@domain.event({ partOf: Order })
export class DrinkOrdered extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true }) drink!: string;
}

@domain.event({ partOf: Order })
export class DrinkServed extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
}

@domain.command({ partOf: Order })
export class OrderDrink extends BaseCommand {
  @field.string({ required: true }) customer!: string;
  @field.string({ required: true }) drink!: string;
}

@domain.commandHandler({ partOf: Order })
export class OrderCommands extends BaseCommandHandler {
  @handle(OrderDrink)
  async orderDrink(command: OrderDrink): Promise<string> {
    const order = Order.take(command.customer, command.drink);
    // Saved in a unit of work: the order and its DrinkOrdered event commit together.
    await domain.repositoryFor(Order).add(order);
    return order.id;
  }
}

@domain.eventHandler({ partOf: Order })
export class Barista extends BaseEventHandler {
  @handle(DrinkOrdered)
  async brew(event: DrinkOrdered): Promise<void> {
    const orders = domain.repositoryFor(Order);
    const order = await orders.get(event.orderId);
    // Events are delivered at least once: the second delivery finds the drink served.
    if (order.status === 'SERVED') return;
    console.log(\`barista: one \${event.drink} for \${order.customer}\`);
    order.serve();
    await orders.add(order);
  }
}
`;
}

export const MAIN_MODULE = `import { domain, Order, OrderDrink } from './domain.js';

await domain.init();
const orderId = await domain.process<string>(OrderDrink.create({ customer: 'Ada', drink: 'flat white' }));

// With event_processing = "sync" the drink is served by now; handled by \`protean-ts server\`, a
// moment later.
const orders = domain.repositoryFor(Order);
for (let i = 0; i < 100 && (await orders.get(orderId)).status !== 'SERVED'; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.log(\`order \${orderId}: \${(await orders.get(orderId)).status}\`);
await domain.close();
`;

export const DOMAIN_TEST = `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domain, Order, OrderDrink } from '../src/domain.js';

// The embedded default of domain.toml: memory database, handlers run right after each commit.
beforeAll(async () => {
  await domain.init();
});

afterAll(async () => {
  await domain.close();
});

describe('ordering a drink', () => {
  it('records the order, and the barista serves it', async () => {
    const orderId = await domain.process<string>(OrderDrink.create({ customer: 'Ada', drink: 'flat white' }));

    const order = await domain.repositoryFor(Order).get(orderId);
    expect(order.customer).toBe('Ada');
    expect(order.status).toBe('SERVED');
  });

  it('refuses a drink name longer than 60 characters', () => {
    expect(() => OrderDrink.create({ customer: 'Ada', drink: 'x'.repeat(61) })).not.toThrow();
    expect(() => Order.take('Ada', 'x'.repeat(61))).toThrow(/drink/);
  });
});
`;
