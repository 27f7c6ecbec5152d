/**
 * Issue 10, point 3: the getting-started domain compiled by the real TypeScript compiler with
 * each wrong decorator setting. Before, `useDefineForClassFields` on gave a domain that loaded
 * and printed "one flat white for undefined", and standard decorators failed with talk of
 * symbols; now each is a DecoratorSettingsError naming the tsconfig option to set.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as core from '../../src/index.js';
import { DecoratorSettingsError } from '../../src/index.js';

/** The domain of docs/getting-started.md (memory database, inline broker, handlers in process). */
const GETTING_STARTED = `
import { BaseAggregate, BaseCommand, BaseCommandHandler, BaseEvent, BaseEventHandler, Domain, field, handle, invariant } from '@protean-ts/core';

export const domain = new Domain('CoffeeBar');
export const served: string[] = [];

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
    this.status = 'SERVED';
  }
}

@domain.event({ partOf: Order })
export class DrinkOrdered extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string({ required: true }) drink!: string;
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
    served.push(\`one \${event.drink} for \${order.customer}\`);
    order.serve();
    await orders.add(order);
  }
}
`;

/** Only method and class decorators: the first protean-ts decorator to run is @invariant or @handle. */
const WITHOUT_FIELDS = `
import { BaseValueObject, BaseEventHandler, BaseEvent, Domain, handle, invariant } from '@protean-ts/core';
export const domain = new Domain('NoFields');
export class Rule extends BaseValueObject {
  @invariant.post() check(): void {}
}
export class Ping extends BaseEvent {}
export class Listener extends BaseEventHandler {
  @handle(Ping) async onPing(): Promise<void> {}
}
@domain.aggregate()
export class Bare {}
`;

interface CompiledDomain {
  domain: core.Domain;
  served: string[];
  Order: typeof core.BaseAggregate & { create(props: object): core.BaseAggregate & { customer: string; drink: string } };
  OrderDrink: typeof core.BaseCommand & { create(props: object): core.BaseCommand };
}

/** Compiles `source` with the real TypeScript compiler and runs it against this checkout's core. */
function compileAndLoad(source: string, compilerOptions: ts.CompilerOptions): CompiledDomain {
  const { outputText, diagnostics } = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, ...compilerOptions },
    reportDiagnostics: true,
  });
  expect(diagnostics ?? []).toEqual([]);
  const module = { exports: {} as Record<string, unknown> };
  const requireCore = (id: string): unknown => {
    if (id !== '@protean-ts/core') throw new Error(`unexpected import ${id}`);
    return core;
  };
  new Function('require', 'module', 'exports', outputText)(requireCore, module, module.exports);
  return module.exports as unknown as CompiledDomain;
}

// event_processing explicit: the compiled domain has no root, so the repository's domain.toml (the example shop's) is found.
const MEMORY = { event_processing: 'sync', databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

async function rejected(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('decorator settings', () => {
  it('with the documented settings the getting-started domain serves the drink to its customer', async () => {
    const app = compileAndLoad(GETTING_STARTED, { experimentalDecorators: true, useDefineForClassFields: false });
    await app.domain.init({ config: MEMORY });
    try {
      await app.domain.process(app.OrderDrink.create({ customer: 'Ada', drink: 'flat white' }));
      expect(app.served).toEqual(['one flat white for Ada']);
    } finally {
      await app.domain.close();
    }
  });

  // TypeScript's default for target ES2022 and later: useDefineForClassFields on.
  it.each([
    ['left to its default for ES2022', {}],
    ['set to true', { useDefineForClassFields: true }],
  ])('useDefineForClassFields %s: domain.init() refuses, naming the option', async (_, options) => {
    const app = compileAndLoad(GETTING_STARTED, { experimentalDecorators: true, ...options });
    const error = await rejected(app.domain.init({ config: MEMORY }));
    expect(error).toBeInstanceOf(DecoratorSettingsError);
    expect(error).toMatchObject({ option: 'useDefineForClassFields' });
    expect((error as Error).message).toMatch(/^Order: its fields customer, drink, status are defined as own properties of each instance/);
    expect((error as Error).message).toContain('Set "useDefineForClassFields": false in the "compilerOptions" of your tsconfig.json');
    await app.domain.close();
  });

  it('useDefineForClassFields on: the first create() refuses too, without domain.init()', () => {
    const app = compileAndLoad(GETTING_STARTED, { experimentalDecorators: true });
    const error = thrown(() => app.Order.create({ customer: 'Ada', drink: 'flat white', status: 'ORDERED' }));
    expect(error).toBeInstanceOf(DecoratorSettingsError);
    expect((error as Error).message).toContain('useDefineForClassFields');
  });

  it.each([
    ['experimentalDecorators left out', {}],
    ['experimentalDecorators false', { experimentalDecorators: false, useDefineForClassFields: false }],
  ])('%s: the first field decorator refuses while the module loads, naming the option', (_, options) => {
    const error = thrown(() => compileAndLoad(GETTING_STARTED, options));
    expect(error).toBeInstanceOf(DecoratorSettingsError);
    expect(error).toMatchObject({ option: 'experimentalDecorators' });
    expect((error as Error).message).toMatch(/^@field\.string\(\) on "customer": it was called as a standard \(TC39\) field decorator/);
    expect((error as Error).message).toContain('Set "experimentalDecorators": true in the "compilerOptions" of your tsconfig.json');
  });

  it('without experimentalDecorators, method and class decorators refuse the same way', () => {
    const error = thrown(() => compileAndLoad(WITHOUT_FIELDS, {}));
    expect(error).toBeInstanceOf(DecoratorSettingsError);
    expect((error as Error).message).toMatch(/^@invariant\.post\(\) on "check": it was called as a standard \(TC39\) method decorator/);
    const handler = thrown(() => compileAndLoad(WITHOUT_FIELDS.replace('@invariant.post() check(): void {}', ''), {}));
    expect((handler as Error).message).toMatch(/^@handle\(Ping\) on "onPing"/);
    const onClass = thrown(() => compileAndLoad(WITHOUT_FIELDS.replace('@invariant.post() check(): void {}', '').replace('@handle(Ping) ', ''), {}));
    expect((onClass as Error).message).toMatch(/^@domain\.aggregate\(\) on "Bare": it was called as a standard \(TC39\) class decorator/);
  });
});
