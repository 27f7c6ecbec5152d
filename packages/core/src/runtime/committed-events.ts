/**
 * What happens after a unit of work of the domain commits: the `onCommitted` listeners hear its
 * events, then, with `event_processing = "sync"`, the in-process event handlers run, each in a
 * unit of work of its own.
 */
import type { BaseEvent } from '../elements/base-event.js';
import type { BindingInvoker } from '../processing/message-handling.js';
import { dispatchCommittedEvents } from '../processing/sync-event-dispatcher.js';
import type { RuntimeContext } from './runtime-context.js';
import type { CommittedEventsListener, RuntimeEvents, RuntimeUnits } from './runtime-surface.js';

export class CommittedEvents implements RuntimeEvents {
  private readonly listeners = new Set<CommittedEventsListener>();

  constructor(
    private readonly context: RuntimeContext,
    private readonly units: () => RuntimeUnits,
    private readonly invoke: BindingInvoker,
  ) {}

  onCommitted(listener: CommittedEventsListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Given to every unit of work of the domain (see RuntimeUnits). */
  readonly afterCommit = async (events: BaseEvent[]): Promise<void> => {
    if (events.length) for (const listener of this.listeners) listener(events);
    if (this.context.loadedConfig()?.event_processing !== 'sync') return;
    await dispatchCommittedEvents(
      {
        handlersFor: (type) => this.context.registry.handlersFor(type),
        freshUnitOfWork: (work, context) => this.units().fresh(work, context),
        log: this.context.log,
        invoke: this.invoke,
      },
      events,
    );
  };
}
