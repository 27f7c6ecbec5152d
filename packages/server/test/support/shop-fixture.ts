/**
 * A small shop domain for Engine tests, built fresh per call so tests never share classes or
 * data: PlaceOrder (command) creates an Order that raises OrderPlaced; event handlers record
 * what they saw, one fails a configurable number of times, one always fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BaseAggregate,
  BaseCommand,
  BaseCommandHandler,
  BaseEvent,
  BaseEventHandler,
  BaseSubscriber,
  Domain,
  field,
  handle,
  type ConfigOverrides,
} from '@protean-ts/core';

export interface ShopProbe {
  placed: string[];
  flakyAttempts: number;
  /** Flaky fails this many times, then succeeds. */
  flakyFailures: number;
  brokenAttempts: number;
  received: Record<string, unknown>[];
}

export function makeShop(name: string, config: ConfigOverrides) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-server-'));
  const domain = new Domain(name, { root, config });
  const probe: ShopProbe = { placed: [], flakyAttempts: 0, flakyFailures: 0, brokenAttempts: 0, received: [] };

  @domain.aggregate()
  class Order extends BaseAggregate {
    @field.string({ required: true }) customer!: string;
    place(): void {
      this.raise(OrderPlaced.create({ orderId: this.id, customer: this.customer }));
    }
  }

  @domain.event({ partOf: Order })
  class OrderPlaced extends BaseEvent {
    @field.identifier({ required: true }) orderId!: string;
    @field.string() customer?: string;
  }

  @domain.command({ partOf: Order })
  class PlaceOrder extends BaseCommand {
    @field.string({ required: true }) customer!: string;
  }

  @domain.commandHandler({ partOf: Order })
  class OrderCommands extends BaseCommandHandler {
    @handle(PlaceOrder) async place(command: PlaceOrder): Promise<string> {
      const order = Order.create({ customer: command.customer });
      order.place();
      await domain.repositoryFor(Order).add(order);
      return order.id;
    }
  }

  @domain.eventHandler({ partOf: Order })
  class Ledger extends BaseEventHandler {
    @handle(OrderPlaced) async onPlaced(event: OrderPlaced): Promise<void> {
      // The crash-recovery test's child process dies right here, holding the message unacked.
      if (process.env.PROTEAN_TEST_CRASH_ON && process.env.PROTEAN_TEST_CRASH_ON === event.customer) process.kill(process.pid, 'SIGKILL');
      probe.placed.push(event.customer ?? '');
    }
  }

  @domain.eventHandler({ partOf: Order })
  class Flaky extends BaseEventHandler {
    @handle(OrderPlaced) async onPlaced(): Promise<void> {
      probe.flakyAttempts += 1;
      if (probe.flakyAttempts <= probe.flakyFailures) throw new Error(`flaky failure ${probe.flakyAttempts}`);
    }
  }

  @domain.eventHandler({ partOf: Order })
  class Broken extends BaseEventHandler {
    @handle(OrderPlaced) async onPlaced(event: OrderPlaced): Promise<void> {
      probe.brokenAttempts += 1;
      throw new Error(`broken handler refuses ${event.customer}`);
    }
  }

  @domain.subscriber({ stream: 'payments-gateway' })
  class GatewayCallbacks extends BaseSubscriber {
    async receive(payload: Record<string, unknown>): Promise<void> {
      probe.received.push(payload);
    }
  }

  return { domain, root, probe, Order, OrderPlaced, PlaceOrder, OrderCommands, Ledger, Flaky, Broken, GatewayCallbacks };
}
