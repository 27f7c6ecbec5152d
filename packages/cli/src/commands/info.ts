/**
 * `protean-ts info`: imports the domain (without connecting to anything) and shows what it
 * registered: aggregates with their fields and database, messages, handlers, and the model's
 * problems. A quick way to check that the CLI sees the domain the way the code declares it.
 */
import type { BaseAggregate, ClassRef, Domain, ElementKind } from '@protean-ts/core';
import { CliError } from '../errors.js';
import type { CommandGroup } from './command-group.js';

// Every kind, in the order shown; `satisfies` makes a kind added to core fail to compile here until listed.
const KIND_ORDER = {
  aggregate: 1,
  entity: 2,
  valueObject: 3,
  event: 4,
  command: 5,
  query: 6,
  commandHandler: 7,
  eventHandler: 8,
  queryHandler: 9,
  applicationService: 10,
  domainService: 11,
  repository: 12,
  subscriber: 13,
  processManager: 14,
  projection: 15,
  projector: 16,
} satisfies Record<ElementKind, number>;
const KINDS = Object.keys(KIND_ORDER) as ElementKind[];

export interface DomainSummary {
  name: string;
  module: string;
  /**
   * Where each aggregate is kept: a table of a database, or, when event-sourced, the streams of
   * its category in the event store's database (`table` null: it has no table).
   */
  aggregates: Array<{ name: string; provider: string; table: string | null; eventSourced?: true; streamCategory?: string; fields: string[] }>;
  elements: Partial<Record<ElementKind, string[]>>;
  problems: string[];
}

/** `eventStoreDatabase`: `event_store.database` of the configuration, when it loads. */
export function summarizeDomain(domain: Domain, module: string, eventStoreDatabase = 'default'): DomainSummary {
  const elements: Partial<Record<ElementKind, string[]>> = {};
  for (const kind of KINDS) {
    const names = domain.recordsOf(kind).map((record) => record.name);
    if (names.length) elements[kind] = names;
  }
  const problems = domain.validateModel();
  const aggregates = problems.length
    ? []
    : domain.recordsOf('aggregate').map((record) => {
        const schema = domain.aggregateSchemaFor(record.cls as ClassRef<BaseAggregate>);
        const fields = schema.fields.map((f) => f.name);
        if (!domain.registry.isEventSourced(record.cls)) return { name: schema.name, provider: schema.provider, table: schema.tableName, fields };
        return {
          name: schema.name,
          provider: eventStoreDatabase,
          table: null,
          eventSourced: true as const,
          streamCategory: domain.registry.streamCategoryOf(record.cls),
          fields,
        };
      });
  return { name: domain.name, module, aggregates, elements, problems };
}

export const registerInfoCommands: CommandGroup = (program, context) => {
  program
    .command('info')
    .description('Load the domain and list its elements; exits 1 when the model has problems')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const domain = await context.loadDomain();
      // info works without a valid configuration (the model is what it shows); the event store's database comes from it when it loads.
      const eventStoreDatabase = await context.loadConfig().then(
        (loaded) => loaded.config.event_store.database,
        () => undefined,
      );
      const summary = summarizeDomain(domain, context.locateDomain().file, eventStoreDatabase);
      const { io } = context;
      if (options.json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
      else io.stdout(renderSummary(summary));
      if (summary.problems.length) {
        const list = summary.problems.map((p) => `\n  - ${p}`).join('');
        throw new CliError(`the model of ${summary.name} has ${summary.problems.length} problem(s):${list}`);
      }
    });
};

function renderSummary(summary: DomainSummary): string {
  const lines = [`Domain ${summary.name} (${summary.module})`];
  for (const aggregate of summary.aggregates) {
    const kept = aggregate.eventSourced
      ? `event-sourced, streams ${aggregate.streamCategory}-<id> in the event store of ${aggregate.provider}`
      : `${aggregate.provider}.${aggregate.table}`;
    lines.push(`  aggregate ${aggregate.name} → ${kept}: ${aggregate.fields.join(', ')}`);
  }
  for (const [kind, names] of Object.entries(summary.elements)) {
    if (kind !== 'aggregate' || summary.aggregates.length === 0) lines.push(`  ${kind}: ${names.join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
