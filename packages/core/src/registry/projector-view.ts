/**
 * Projectors take part in message delivery as event handlers: the registry binds their `@on`
 * methods under an event-handler view of their record, so `domain.handleMessage`, the
 * after-commit dispatch (`event_processing = "sync"`) and the server's handler subscriptions
 * run them with no projector-specific path.
 */
import type { EventHandlerRecord, HandlerRecord, ElementRecord, ProjectorRecord } from './element-record.js';

const views = new WeakMap<ProjectorRecord, EventHandlerRecord>();

/** The event-handler view of a projector record (the same object each time). */
export function eventHandlerViewOf(record: ProjectorRecord): EventHandlerRecord {
  let view = views.get(record);
  if (!view) {
    view = Object.freeze({
      kind: 'eventHandler',
      cls: record.cls,
      name: record.name,
      options: Object.freeze({
        partOf: undefined,
        streamCategory: undefined,
        subscriptionName: record.name,
        subscriptionType: record.options.subscriptionType,
        ownTransaction: false,
      }),
    });
    views.set(record, view);
  }
  return view;
}

/** The handler record messages are routed by: handlers and process managers as they are, projectors through their view. */
export function deliveryRecordOf(record: ElementRecord): HandlerRecord | undefined {
  if (record.kind === 'commandHandler' || record.kind === 'eventHandler' || record.kind === 'processManager') return record;
  if (record.kind === 'projector') return eventHandlerViewOf(record);
  return undefined;
}
