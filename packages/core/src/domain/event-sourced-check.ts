/**
 * Model checks of event-sourced aggregates, run by `domain.init()`: every event that is part of
 * such an aggregate has its `@apply` method, every `@apply` names one of its events, and its
 * stream category can name event-store streams. `@apply` on a stored-state aggregate is refused.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { applyMarksOf } from '../elements/apply.js';
import { isCategory } from '../ports/stream-names.js';
import type { ElementRegistry } from '../registry/registry.js';

const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));

export function checkEventSourcedAggregates(registry: ElementRegistry, problems: string[]): void {
  for (const record of registry.recordsOf('aggregate')) {
    const marks = applyMarksOf(record.cls);
    if (!record.options.isEventSourced) {
      if (marks.length)
        problems.push(
          `${record.name} (aggregate): has @apply methods (${marks.map((m) => m.method).join(', ')}) but is not event-sourced; register it with @domain.aggregate({ eventSourced: true }) or remove them`,
        );
      continue;
    }
    const category = record.options.streamCategory;
    if (!isCategory(category) || category === '$all') {
      problems.push(`${record.name} (aggregate): event-sourced, so its streamCategory must be <domain>::<category> without "-" (got "${category}")`);
    }
    const ownEvents = registry.recordsOf('event').filter((event) => event.options.partOf === record.cls);
    const methodsByEvent = new Map<ClassRef, string[]>();
    for (const mark of marks) {
      const event = registry.recordOf(mark.event);
      if (event?.kind !== 'event') {
        problems.push(`${record.name}.${mark.method}: @apply(${nameOf(mark.event)}) names a class that is not a registered event`);
        continue;
      }
      if (event.options.partOf !== record.cls) {
        problems.push(
          `${record.name}.${mark.method}: @apply(${event.name}) names an event that is not part of ${record.name} (its partOf is ${nameOf(event.options.partOf)}); declare @domain.event({ partOf: ${record.name} })`,
        );
      }
      methodsByEvent.set(mark.event, [...(methodsByEvent.get(mark.event) ?? []), mark.method]);
    }
    for (const event of ownEvents) {
      if (!methodsByEvent.has(event.cls))
        problems.push(`${record.name} (aggregate): event-sourced, but its event ${event.name} has no @apply(${event.name}) method; add one`);
    }
    for (const [event, methods] of methodsByEvent) {
      if (methods.length > 1)
        problems.push(`${record.name} (aggregate): has ${methods.length} @apply methods for ${nameOf(event)} (${methods.join(', ')}); keep one`);
    }
  }
}
