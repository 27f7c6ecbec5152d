/**
 * Model checks of process managers, run by `domain.init()`: every `@handle` needs `correlate`
 * (naming a field of its event), the handlers agree on the manager field that identifies an
 * instance, at least one handler starts the process, and each handled event travels on a
 * category the manager follows (else no subscription would ever deliver it).
 */
import type { ClassRef } from '../fields/field-definition.js';
import { fieldsOf } from '../fields/field-metadata.js';
import { handleMarksOf, type HandleMark } from '../elements/handle.js';
import type { ProcessManagerRecord } from '../registry/element-record.js';
import type { ElementRegistry } from '../registry/registry.js';
import { correlationOf } from '../process-managers/correlation.js';

const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));

export function checkProcessManagers(registry: ElementRegistry, problems: string[]): void {
  for (const record of registry.recordsOf('processManager')) checkOne(registry, record, problems);
}

function checkOne(registry: ElementRegistry, record: ProcessManagerRecord, problems: string[]): void {
  const where = `${record.name} (process manager)`;
  for (const aggregate of record.options.aggregates) {
    if (registry.recordOf(aggregate)?.kind !== 'aggregate')
      problems.push(`${where}: aggregates lists ${nameOf(aggregate)}, which is not a registered aggregate`);
  }
  const categories = new Set(registry.processManagerCategories(record.cls));
  if (record.options.aggregates.length === 0 && record.options.streamCategories.length === 0) {
    problems.push(`${where}: follows no stream; give @domain.processManager({ aggregates: [SomeAggregate] }) or streamCategories`);
  }
  const marks = handleMarksOf(record.cls);
  if (marks.length === 0) problems.push(`${where}: has no @handle methods; add @handle(Event, { start: true, correlate: '<field>' })`);
  else if (!marks.some((mark) => mark.options?.start === true)) problems.push(`${where}: no @handle method starts the process; mark one with { start: true }`);

  const managerFields = new Map<string, string[]>();
  const methodsByEvent = new Map<ClassRef, string[]>();
  for (const mark of marks) {
    const method = `${record.name}.${mark.method}`;
    const message = registry.recordOf(mark.message);
    if (!message || message.kind !== 'event') {
      problems.push(
        `${method}: @handle(${nameOf(mark.message)}) in a process manager must name a registered event${message?.kind === 'command' ? ` (${message.name} is a command)` : ''}`,
      );
      continue;
    }
    methodsByEvent.set(mark.message, [...(methodsByEvent.get(mark.message) ?? []), mark.method]);
    const correlation = checkCorrelate(method, message.name, mark, problems);
    if (correlation) {
      if (!fieldsOf(mark.message).some((field) => field.name === correlation.eventField)) {
        problems.push(
          `${method}: correlate names "${correlation.eventField}", which is not a field of ${message.name} (fields: ${fieldsOf(mark.message)
            .map((f) => f.name)
            .join(', ')})`,
        );
      }
      managerFields.set(correlation.managerField, [...(managerFields.get(correlation.managerField) ?? []), mark.method]);
    }
    const category = registry.messageInfo(mark.message).streamCategory;
    if (category !== undefined && categories.size > 0 && !categories.has(category)) {
      problems.push(
        `${method}: ${message.name} travels on "${category}", which ${record.name} does not follow (${[...categories].join(', ')}); add its aggregate to aggregates or the category to streamCategories`,
      );
    }
  }
  if (managerFields.size > 1) {
    const listed = [...managerFields].map(([field, methods]) => `${field} (${methods.join(', ')})`).join(', ');
    problems.push(
      `${where}: its handlers correlate to different manager fields: ${listed}; map every event to one field, e.g. correlate: { <eventField>: '<managerField>' }`,
    );
  }
  for (const [event, methods] of methodsByEvent) {
    if (methods.length > 1) problems.push(`${where}: has ${methods.length} methods for ${nameOf(event)} (${methods.join(', ')}); keep one`);
  }
}

function checkCorrelate(method: string, event: string, mark: HandleMark, problems: string[]): ReturnType<typeof correlationOf> {
  const correlate = mark.options?.correlate;
  if (correlate === undefined) {
    problems.push(
      `${method}: @handle(${event}) in a process manager needs correlate, the ${event} field that identifies the instance: @handle(${event}, { correlate: 'orderId' })`,
    );
    return undefined;
  }
  const correlation = correlationOf(correlate);
  if (!correlation) {
    problems.push(`${method}: correlate must be a field name or a one-entry map { <event field>: '<manager field>' }, got ${JSON.stringify(correlate)}`);
  }
  return correlation;
}
