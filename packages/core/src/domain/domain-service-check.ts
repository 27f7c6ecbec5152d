/** Model check for domain services: they span two or more registered aggregates, as in Protean. */
import type { ElementRegistry } from '../registry/registry.js';

const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));

export function checkDomainServices(registry: ElementRegistry, problems: string[]): void {
  for (const record of registry.recordsOf('domainService')) {
    const label = `${record.cls.name} (domain service)`;
    const { partOf } = record.options;
    if (partOf.length < 2) {
      problems.push(
        `${label}: partOf lists ${partOf.length === 0 ? 'no aggregate' : `only ${partOf.map(nameOf).join('')}`}; a domain service spans two or more aggregates ` +
          '(@domain.domainService({ partOf: [Order, Inventory] })); a rule of one aggregate belongs in that aggregate',
      );
    }
    for (const target of partOf) {
      if (registry.recordOf(target as never)?.kind !== 'aggregate') problems.push(`${label}: partOf ${nameOf(target)} is not a registered aggregate`);
    }
  }
}
