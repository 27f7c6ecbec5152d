/**
 * Checks the registered model as a whole and returns every problem, one line each, so
 * `domain.init()` can refuse an inconsistent model with a single complete report.
 */
import type { ClassRef, FieldDefinition } from '../fields/field-definition.js';
import { fieldsOf } from '../fields/field-metadata.js';
import { handleMarksOf } from '../elements/handle.js';
import type { ElementRecord } from '../registry/element-record.js';
import type { ElementRegistry } from '../registry/registry.js';
import { checkEventSourcedAggregates } from './event-sourced-check.js';
import { checkQueries } from './query-check.js';
import { checkDomainServices } from './domain-service-check.js';
import { checkProcessManagers } from './process-manager-check.js';
import { checkProjections } from './projection-check.js';

const KIND_LABEL: Record<ElementRecord['kind'], string> = {
  aggregate: 'aggregate',
  entity: 'entity',
  valueObject: 'value object',
  event: 'event',
  command: 'command',
  commandHandler: 'command handler',
  eventHandler: 'event handler',
  applicationService: 'application service',
  repository: 'repository',
  subscriber: 'subscriber',
  query: 'query',
  queryHandler: 'query handler',
  domainService: 'domain service',
  processManager: 'process manager',
  projection: 'projection',
  projector: 'projector',
};

const label = (r: ElementRecord): string => `${r.cls.name} (${KIND_LABEL[r.kind]})`;
const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));

function resolveTarget(def: FieldDefinition): ClassRef | undefined {
  try {
    const target = def.target?.();
    return typeof target === 'function' ? target : undefined;
  } catch {
    return undefined;
  }
}

function checkFields(registry: ElementRegistry, record: ElementRecord, problems: string[]): void {
  for (const def of fieldsOf(record.cls)) {
    const where = `${record.cls.name}.${def.name}`;
    const isKind = (cls: ClassRef | undefined, kind: ElementRecord['kind']): boolean => !!cls && registry.recordOf(cls)?.kind === kind;
    if (def.kind === 'hasOne' || def.kind === 'hasMany' || def.kind === 'valueObject' || def.kind === 'reference') {
      const target = resolveTarget(def);
      if (!target) {
        problems.push(`${where}: the ${def.kind} target is undefined (the lazy reference returned nothing; check for an import cycle)`);
        continue;
      }
      if ((def.kind === 'hasOne' || def.kind === 'hasMany') && !isKind(target, 'entity')) {
        problems.push(`${where}: ${def.kind} target ${target.name} is not a registered entity (decorate it with @domain.entity({ partOf: ... }))`);
      }
      if (def.kind === 'valueObject' && !isKind(target, 'valueObject'))
        problems.push(`${where}: valueObject target ${target.name} is not a registered value object`);
      if (def.kind === 'reference' && !isKind(target, 'aggregate')) problems.push(`${where}: reference target ${target.name} is not a registered aggregate`);
    }
    if (def.kind === 'list' && typeof def.of === 'function') {
      let item: ClassRef | undefined;
      try {
        item = def.of();
      } catch {
        item = undefined;
      }
      if (!isKind(item, 'valueObject')) problems.push(`${where}: list item type ${nameOf(item)} is not a registered value object`);
    }
    if (def.kind === 'status' && def.default !== undefined) {
      const value = typeof def.default === 'function' ? (def.default as () => unknown)() : def.default;
      if (!def.values?.includes(value as string))
        problems.push(`${where}: status default ${JSON.stringify(value)} is not among its values (${def.values?.join(', ')})`);
    }
    if (def.kind === 'status' && def.transitions) {
      for (const [from, tos] of Object.entries(def.transitions)) {
        for (const state of [from, ...tos]) {
          if (!def.values?.includes(state))
            problems.push(`${where}: transition state ${JSON.stringify(state)} is not among its values (${def.values?.join(', ')})`);
        }
      }
    }
  }
}

function checkHandler(registry: ElementRegistry, record: ElementRecord, problems: string[]): void {
  if (record.kind !== 'commandHandler' && record.kind !== 'eventHandler') return;
  const { partOf, streamCategory } = record.options;
  if (partOf && registry.recordOf(partOf)?.kind !== 'aggregate') problems.push(`${label(record)}: partOf ${nameOf(partOf)} is not a registered aggregate`);
  if (typeof streamCategory === 'function' && registry.recordOf(streamCategory)?.kind !== 'aggregate') {
    problems.push(`${label(record)}: streamCategory ${streamCategory.name} is not a registered aggregate (give an aggregate class or a category string)`);
  }
  if (!partOf && !streamCategory) problems.push(`${label(record)}: has no stream; give partOf (an aggregate) or streamCategory`);

  const methodsByMessage = new Map<ClassRef, string[]>();
  for (const mark of handleMarksOf(record.cls)) {
    const message = registry.recordOf(mark.message);
    if (!message || (message.kind !== 'event' && message.kind !== 'command')) {
      problems.push(`${record.cls.name}.${mark.method}: @handle(${nameOf(mark.message)}) names a class that is not a registered event or command`);
      continue;
    }
    if (record.kind === 'commandHandler' && message.kind !== 'command')
      problems.push(`${record.cls.name}.${mark.method}: a command handler handles commands, but ${message.name} is an event`);
    if (record.kind === 'eventHandler' && message.kind !== 'event')
      problems.push(`${record.cls.name}.${mark.method}: an event handler handles events, but ${message.name} is a command`);
    methodsByMessage.set(mark.message, [...(methodsByMessage.get(mark.message) ?? []), mark.method]);
  }
  for (const [message, methods] of methodsByMessage) {
    if (methods.length > 1) problems.push(`${label(record)}: has ${methods.length} methods for ${message.name} (${methods.join(', ')}); keep one`);
  }
}

export function validateModel(registry: ElementRegistry): string[] {
  const problems: string[] = [];
  const records = registry.allRecords();

  const byName = new Map<string, ElementRecord[]>();
  for (const r of records) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  for (const [name, same] of byName) {
    if (same.length > 1) problems.push(`"${name}" is registered ${same.length} times: ${same.map(label).join(', ')}; rename one (messages may set { name })`);
  }

  for (const record of records) {
    switch (record.kind) {
      case 'event':
      case 'command': {
        const { partOf } = record.options;
        if (partOf && registry.recordOf(partOf)?.kind !== 'aggregate')
          problems.push(`${label(record)}: partOf ${nameOf(partOf)} is not a registered aggregate`);
        break;
      }
      case 'entity': {
        const { partOf } = record.options;
        if (!partOf) problems.push(`${label(record)}: has no aggregate; declare @domain.entity({ partOf: SomeAggregate })`);
        else if (!registry.aggregateOf(record.cls))
          problems.push(`${label(record)}: partOf ${nameOf(partOf)} is not a registered aggregate (or an entity inside one)`);
        break;
      }
      case 'repository': {
        const { partOf } = record.options;
        if (!partOf || registry.recordOf(partOf)?.kind !== 'aggregate')
          problems.push(`${label(record)}: partOf ${nameOf(partOf)} is not a registered aggregate`);
        break;
      }
      default:
        break;
    }
    checkHandler(registry, record, problems);
    if (['aggregate', 'entity', 'valueObject', 'event', 'command', 'projection'].includes(record.kind)) checkFields(registry, record, problems);
    if (record.kind === 'query') checkFields(registry, record, problems);
  }

  const commandHandlers = new Map<string, string[]>();
  for (const r of registry.recordsOf('commandHandler')) {
    for (const type of registry.handlerMethodsOf(r.cls).keys()) commandHandlers.set(type, [...(commandHandlers.get(type) ?? []), r.cls.name]);
  }
  for (const [type, handlers] of commandHandlers) {
    if (handlers.length > 1) problems.push(`${type} is handled by ${handlers.length} command handlers (${handlers.join(', ')}); a command has exactly one`);
  }
  checkEventSourcedAggregates(registry, problems);
  checkEventStoreHandlers(registry, problems);
  checkQueries(registry, problems);
  checkDomainServices(registry, problems);
  checkProcessManagers(registry, problems);
  checkProjections(registry, problems);
  return problems;
}

/** A handler declared to read the event store must follow a category that event-sourced aggregates write. */
function checkEventStoreHandlers(registry: ElementRegistry, problems: string[]): void {
  for (const record of registry.recordsOf('eventHandler')) {
    if (record.options.subscriptionType !== 'event_store') continue;
    const category = registry.handlerStreamCategory(record.cls);
    if (category && !registry.eventSourcedAggregateOf(category)) {
      problems.push(
        `${label(record)}: subscriptionType 'event_store', but no event-sourced aggregate writes its category "${category}" to the event store; ` +
          "make that aggregate eventSourced, or read it from broker streams (subscriptionType: 'stream')",
      );
    }
  }
}
