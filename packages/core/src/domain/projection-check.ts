/**
 * The `domain.init()` checks of projections and projectors, one line per problem, each naming
 * the element: a projection needs a declared identifier; a projector needs a registered
 * projection (`projectorFor`), something to follow (`aggregates` or `streamCategories`) and
 * `@on` methods for registered events of what it follows.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { identityFieldOf } from '../fields/field-metadata.js';
import { handleMarksOf } from '../elements/handle.js';
import type { ProjectorRecord } from '../registry/element-record.js';
import type { ElementRegistry } from '../registry/registry.js';

const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));

export function checkProjections(registry: ElementRegistry, problems: string[]): void {
  for (const record of registry.recordsOf('projection')) {
    if (identityFieldOf(record.cls)?.implicit) {
      problems.push(
        `${record.name} (projection): has no identifier; declare the field that identifies a record, e.g. @field.identifier({ identifier: true }) orderId`,
      );
    }
  }
  for (const record of registry.recordsOf('projector')) checkProjector(registry, record, problems);
}

function checkProjector(registry: ElementRegistry, record: ProjectorRecord, problems: string[]): void {
  const label = `${record.name} (projector)`;
  const { projectorFor, aggregates, streamCategories, subscriptionType } = record.options;
  if (!projectorFor) problems.push(`${label}: has no projection; declare @domain.projector({ projectorFor: SomeProjection, aggregates: [...] })`);
  else if (registry.recordOf(projectorFor)?.kind !== 'projection') {
    problems.push(`${label}: projectorFor ${nameOf(projectorFor)} is not a registered projection (decorate it with @domain.projection())`);
  }
  if (aggregates.length === 0 && streamCategories.length === 0) {
    problems.push(`${label}: follows nothing; give aggregates: [SomeAggregate] or streamCategories: ['<domain>::<aggregate>']`);
  }
  for (const aggregate of aggregates) {
    if (registry.recordOf(aggregate)?.kind !== 'aggregate')
      problems.push(`${label}: aggregates lists ${nameOf(aggregate)}, which is not a registered aggregate`);
  }
  const categories = new Set(registry.projectorCategories(record.cls));
  const methods = new Map<ClassRef, string[]>();
  for (const mark of handleMarksOf(record.cls)) {
    const message = registry.recordOf(mark.message);
    if (message?.kind !== 'event') {
      const what = message ? `a ${message.kind}` : 'not a registered event';
      problems.push(`${record.name}.${mark.method}: @on(${nameOf(mark.message)}) names ${what}; a projector reacts to registered events only`);
      continue;
    }
    methods.set(mark.message, [...(methods.get(mark.message) ?? []), mark.method]);
    const category = registry.messageInfo(mark.message).streamCategory;
    if (categories.size > 0 && category && !categories.has(category)) {
      problems.push(
        `${record.name}.${mark.method}: ${message.name} comes from stream category "${category}", which ${record.name} does not follow (${[...categories].join(', ')}); add its aggregate to aggregates`,
      );
    }
  }
  if (methods.size === 0) problems.push(`${label}: has no @on(Event) methods, so it would never write ${nameOf(projectorFor)}`);
  for (const [message, names] of methods) {
    if (names.length > 1) problems.push(`${label}: has ${names.length} methods for ${message.name} (${names.join(', ')}); keep one`);
  }
  if (subscriptionType === 'event_store') {
    for (const category of categories) {
      if (!registry.eventSourcedAggregateOf(category)) {
        problems.push(
          `${label}: subscriptionType 'event_store', but no event-sourced aggregate writes its category "${category}" to the event store; make that aggregate eventSourced, or leave subscriptionType out`,
        );
      }
    }
  }
}
