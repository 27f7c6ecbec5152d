/**
 * The server's Engine in this process, for the embedded default (memory database, in-process
 * broker): it relays the outbox and runs the event handlers, the process manager and the
 * commands it sends, as `protean-ts server` does in production. The demo and the unit tests use
 * it to run the whole flow without a server process; `settled()` tells them when an order's
 * flow has run its course.
 */
import type { Domain } from '@protean-ts/core';
import { Engine } from '@protean-ts/server';
import { Order } from './orders/order.js';

const DRAIN_TIMEOUT_MS = 30_000;

export class EmbeddedServer {
  private constructor(private readonly engine: Engine) {}

  /** Starts the Engine on the (initialised) domain; no health endpoints. */
  static async start(domain: Domain): Promise<EmbeddedServer> {
    const engine = new Engine(domain, { health: false, drain: { intervalMs: 10, quietChecks: 3 } });
    await engine.start();
    return new EmbeddedServer(engine);
  }

  /** Resolves once every outbox and subscription is empty (timeouts still waiting do not count). */
  async drained(): Promise<void> {
    const result = await this.engine.waitUntilDrained(DRAIN_TIMEOUT_MS);
    if (!result.drained) throw new Error(`the in-process server did not drain within ${DRAIN_TIMEOUT_MS} ms; still busy: ${result.busy.join('; ')}`);
  }

  /**
   * Resolves with the order once it is PAID or CANCELLED and everything that follows from that
   * has been handled; an order waiting for its payment waits for its payment timeout.
   */
  async settled(domain: Domain, orderId: string, timeoutMs = 60_000): Promise<Order> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.drained();
      const order = await domain.repositoryFor(Order).get(orderId);
      if (order.status === 'PAID' || order.status === 'CANCELLED') {
        // A timeout that came due just now may have cancelled it while its stock release is still on its way.
        await this.drained();
        return order;
      }
      if (Date.now() > deadline) throw new Error(`order ${orderId} still ${order.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Messages the Engine's subscriptions have handled since it started (bench/e2e reads it). */
  handledMessages(): number {
    return this.engine.subscriptionStatuses().reduce((sum, status) => sum + status.handled, 0);
  }

  stop(): Promise<void> {
    return this.engine.stop();
  }
}
