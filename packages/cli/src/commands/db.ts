/**
 * `protean-ts db setup | setup-outbox | drop | truncate`: creates, drops or empties the tables
 * of every aggregate, entity, projection and the outbox on each managed database of the domain. Databases
 * with `managed = false` are skipped with a line saying so; drop and truncate ask first.
 */
import { createInterface } from 'node:readline/promises';
import { maskUri, type AggregateSchema, type DatabaseProvider, type Domain } from '@protean-ts/core';
import { CliError } from '../errors.js';
import type { CliIO } from '../cli-context.js';
import type { CommandGroup } from './command-group.js';

type DbAction = 'setup' | 'setup-outbox' | 'drop' | 'truncate';

interface Target {
  name: string;
  provider: DatabaseProvider;
  schemas: AggregateSchema[];
  label: string;
}

interface Outcome {
  /** Tables created, dropped or emptied. */
  done: string[];
  /** Tables that were already there (setup only). */
  existing: string[];
}

const VERB: Record<DbAction, { done: string; past: string }> = {
  setup: { done: 'created', past: 'set up' },
  'setup-outbox': { done: 'created', past: 'set up' },
  drop: { done: 'dropped', past: 'dropped' },
  truncate: { done: 'emptied', past: 'emptied' },
};

export const registerDbCommands: CommandGroup = (program, context) => {
  const db = program.command('db').description('Create, drop or empty the database tables of the domain');
  const run = async (action: DbAction, yes: boolean): Promise<void> => {
    const domain = await context.initDomain();
    try {
      await runDbAction(domain, action, { yes, io: context.io });
    } finally {
      await domain.close();
    }
  };
  db.command('setup')
    .description('Create the tables of every aggregate, entity, projection and the outbox on each managed database (safe to re-run)')
    .action(() => run('setup', true));
  db.command('setup-outbox')
    .description('Create only the outbox table on each managed database (safe to re-run)')
    .action(() => run('setup-outbox', true));
  db.command('drop')
    .description('Drop the tables of every aggregate, entity, projection and the outbox on each managed database')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((options: { yes?: boolean }) => run('drop', options.yes === true));
  db.command('truncate')
    .description('Delete every row of those tables on each managed database, keeping the tables')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((options: { yes?: boolean }) => run('truncate', options.yes === true));
};

export async function runDbAction(domain: Domain, action: DbAction, options: { yes: boolean; io: CliIO }): Promise<void> {
  const { io } = options;
  const all = targetsOf(domain);
  const managed = all.filter((t) => t.provider.managed);
  const skipped = all.filter((t) => !t.provider.managed);
  if ((action === 'drop' || action === 'truncate') && managed.length > 0 && !options.yes) {
    await confirm(action, domain, managed);
  }
  let done = 0;
  let existing = 0;
  for (const target of all) {
    if (!target.provider.managed) {
      io.stdout(`db ${action}: [databases.${target.name}] skipped: managed = false\n`);
      continue;
    }
    io.stdout(`db ${action}: [databases.${target.name}] ${target.label} …\n`);
    const outcome = await perform(action, target);
    done += outcome.done.length;
    existing += outcome.existing.length;
    io.stdout(`  ${VERB[action].done}: ${list(outcome.done)}\n`);
    if (action === 'setup' || action === 'setup-outbox') io.stdout(`  already present: ${list(outcome.existing)}\n`);
  }
  const parts = [`${managed.length} ${plural(managed.length, 'database')} ${VERB[action].past}`, `${done} ${plural(done, 'table')} ${VERB[action].done}`];
  if (action === 'setup' || action === 'setup-outbox') parts.push(`${existing} already present`);
  if (skipped.length) parts.push(`${skipped.length} skipped (managed = false)`);
  io.stdout(`db ${action}: done: ${parts.join(', ')}\n`);
}

async function perform(action: DbAction, target: Target): Promise<Outcome> {
  switch (action) {
    case 'setup': {
      const report = await target.provider.setupSchema(target.schemas, { outbox: true });
      return { done: report.created, existing: report.existing };
    }
    case 'setup-outbox': {
      const report = await target.provider.setupOutbox();
      return { done: report.created, existing: report.existing };
    }
    case 'drop':
      return { done: await target.provider.dropSchema(target.schemas), existing: [] };
    case 'truncate':
      return { done: await target.provider.truncate(target.schemas), existing: [] };
  }
}

function targetsOf(domain: Domain): Target[] {
  const schemas = domain.runtime.infrastructure.aggregateSchemas();
  return [...domain.providers].map(([name, provider]) => {
    const settings = domain.config.databases[name];
    const where = [
      settings?.database_uri ? maskUri(settings.database_uri) : undefined,
      typeof settings?.schema === 'string' ? `schema ${settings.schema}` : undefined,
    ].filter(Boolean);
    return {
      name,
      provider,
      schemas: schemas.filter((s) => s.provider === name),
      label: `${provider.kind}${where.length ? ` (${where.join(', ')})` : ''}`,
    };
  });
}

async function confirm(action: 'drop' | 'truncate', domain: Domain, targets: Target[]): Promise<void> {
  const what = action === 'drop' ? 'DROP every table' : 'DELETE every row';
  const names = targets.map((t) => t.name).join(', ');
  if (!process.stdin.isTTY) {
    throw new CliError(
      `db ${action} would ${what} of domain ${domain.name} in ${plural(targets.length, 'database')} ${names}; there is no terminal to confirm on, so pass -y to go ahead`,
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${what} of domain ${domain.name} in ${plural(targets.length, 'database')} ${names}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError(`db ${action} cancelled; nothing was changed`);
  } finally {
    prompt.close();
  }
}

function list(tables: string[]): string {
  return tables.length ? tables.join(', ') : '(none)';
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
