/**
 * A real broker whose publishes start only after a delay, as a distant or overloaded broker looks
 * to the processor: everything else is the broker itself.
 */
import type { Broker } from '@protean-ts/core';

export function slowed<B extends Broker>(broker: B, delayMs: number): B {
  const slow = Object.create(broker) as B;
  const wait = () => new Promise<void>((resolve) => setTimeout(resolve, delayMs));
  slow.publishBatch = async (messages) => {
    await wait();
    return broker.publishBatch(messages);
  };
  slow.publish = async (message) => {
    await wait();
    return broker.publish(message);
  };
  return slow;
}
