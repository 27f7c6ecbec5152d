/**
 * `event_processing = "sync"`: after a unit of work commits, each committed event goes to every
 * in-process event handler of its type, each call in a unit of work of its own. A failing
 * handler is logged and does not undo the commit or stop the other handlers; one that lost an
 * optimistic-concurrency race runs again first (retry-on-conflict.ts).
 *
 * Breadth-first: events committed by the handlers are queued behind the ones being dispatched,
 * so every handler sees each aggregate's events in commit order, as a subscription would.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BaseEvent } from '../elements/base-event.js';
import type { HandlerBinding } from '../registry/registry.js';
import type { Logger } from '../logging/logger.js';
import { contextOf, invokeHandler } from './handler-invocation.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { inHandlerSpan } from '../tracing/handler-span.js';
import type { MessageContext } from '../elements/element-host.js';

export interface SyncDispatchHost {
  handlersFor(type: string): readonly HandlerBinding[];
  /** Runs `work` in a new unit of work carrying `context`. */
  freshUnitOfWork(work: () => Promise<unknown>, context: Partial<MessageContext>): Promise<unknown>;
  readonly log: Logger;
  /** Calls one handler method; default invokeHandler (process managers need their state loaded). */
  invoke?: (binding: HandlerBinding, method: string, message: unknown) => Promise<unknown>;
}

interface DispatchQueue {
  /** Each event with the host (the domain) that committed it. */
  pending: { host: SyncDispatchHost; event: BaseEvent }[];
  draining: boolean;
}

/** The queue of the dispatch the calling handler runs in, if any. */
const activeDispatch = new AsyncLocalStorage<DispatchQueue>();

export async function dispatchCommittedEvents(host: SyncDispatchHost, events: readonly BaseEvent[]): Promise<void> {
  const committed = events.map((event) => ({ host, event }));
  const running = activeDispatch.getStore();
  if (running?.draining) {
    running.pending.push(...committed);
    return;
  }
  const queue: DispatchQueue = { pending: committed, draining: true };
  await activeDispatch.run(queue, async () => {
    try {
      for (let next = queue.pending.shift(); next; next = queue.pending.shift()) await dispatchEvent(next.host, next.event);
    } finally {
      // Work a handler left running past the dispatch dispatches its own events.
      queue.draining = false;
    }
  });
}

async function dispatchEvent(host: SyncDispatchHost, event: BaseEvent): Promise<void> {
  const metadata = event._metadata;
  if (!metadata) return;
  for (const binding of host.handlersFor(metadata.headers.type)) {
    if (binding.record.kind !== 'eventHandler' && binding.record.kind !== 'processManager') continue;
    const invoke = host.invoke ?? ((b: HandlerBinding, m: string, e: unknown) => invokeHandler(b.cls, m, e));
    for (const method of binding.methods) {
      try {
        await inHandlerSpan(metadata, { name: binding.cls.name, kind: binding.record.kind }, () =>
          retryOnConflict(
            () => host.freshUnitOfWork(() => invoke(binding, method, event), contextOf(metadata)),
            (attempt, conflict) =>
              host.log.debug('event handler lost a version race; running it again', { handler: `${binding.cls.name}.${method}`, attempt, error: conflict }),
          ),
        );
      } catch (error) {
        host.log.error('event handler failed; the events are committed and other handlers still run', {
          handler: `${binding.cls.name}.${method}`,
          messageId: metadata.headers.id,
          messageType: metadata.headers.type,
          error,
        });
      }
    }
  }
}
