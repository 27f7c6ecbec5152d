/**
 * `protean-ts db setup | setup-outbox | truncate | drop`, run as the real command against a temp
 * project (domain module + domain.toml) and real PostgreSQL databases: two managed, one with
 * `managed = false` that must stay untouched.
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { CLI_BIN, runCli } from '@protean-ts/cli/testing';
import { createTempDatabase, queryDatabase, SERVER_URI, type TempDatabase } from './support/temp-database.js';
import { tempProject } from './support/temp-project.js';

const up = await servicesUp(POSTGRES);
// The confirmation prompt needs a terminal; util-linux `script` gives the command one.
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('!!! SKIPPING the db drop prompt test: util-linux `script` is not installed (apt-get install util-linux)');

const DOMAIN = `
import { Domain, BaseAggregate, BaseEntity, field } from '@protean-ts/core';
export const domain = new Domain('Shop', { root: import.meta.url });

@domain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.hasMany(() => OrderLine) lines?: OrderLine[];
}

@domain.entity({ partOf: Order })
export class OrderLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
}

@domain.aggregate({ provider: 'reporting' })
export class DailySales extends BaseAggregate {
  @field.integer() total?: number;
}
`;

const PASSWORD = 'e2e-secret-pw';
const withPassword = (uri: string) => uri.replace('postgresql://postgres@', `postgresql://postgres:${PASSWORD}@`);

// Each test starts one to four `protean-ts` processes: a hang guard for a loaded machine, not a speed check.
describe.skipIf(!up)('protean-ts db commands', { timeout: 120_000 }, () => {
  let main: TempDatabase;
  let reporting: TempDatabase;
  let legacy: TempDatabase;
  let project: ReturnType<typeof tempProject>;

  const tables = async (db: TempDatabase) =>
    (await queryDatabase<{ t: string }>(db.uri, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).map(
      (r) => r.t,
    );
  const cli = (args: string[], input?: string) => runCli(['db', ...args], { cwd: project.root, input, env: { PROTEAN_LOG_LEVEL: 'warn' } });

  beforeAll(async () => {
    [main, reporting, legacy] = await Promise.all([createTempDatabase(), createTempDatabase(), createTempDatabase()]);
    project = tempProject({
      'domain.ts': DOMAIN,
      'domain.toml': [
        'module = "domain.ts"',
        '[databases.default]',
        'provider = "postgresql"',
        `database_uri = "${withPassword(main.uri)}"`,
        '[databases.reporting]',
        'provider = "postgresql"',
        `database_uri = "${reporting.uri}"`,
        'pool_size = 2',
        '[databases.legacy]',
        'provider = "postgresql"',
        `database_uri = "${legacy.uri}"`,
        'managed = false',
        '',
      ].join('\n'),
    });
  });
  afterAll(async () => {
    project?.remove();
    await Promise.all([main?.drop(), reporting?.drop(), legacy?.drop()]);
  });

  it('db setup creates every table and the outbox on each managed database, skipping unmanaged ones', async () => {
    const result = await cli(['setup']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`db setup: [databases.default] postgresql (postgresql://postgres:***@127.0.0.1:5432/${main.name}) …`);
    expect(result.stdout).toContain(
      '  created: order, order_line, protean_outbox, protean_outbox_positions, protean_inbox_checkpoints, protean_inbox_passed, protean_inbox_messages, protean_command_outcomes, protean_projections, protean_partition_members, protean_partition_leases, protean_events, protean_event_streams, protean_snapshots, protean_event_store_subscriptions, protean_event_store_dead_letters',
    );
    expect(result.stdout).toContain(
      '  created: daily_sales, protean_outbox, protean_outbox_positions, protean_inbox_checkpoints, protean_inbox_passed, protean_inbox_messages, protean_command_outcomes, protean_projections, protean_partition_members, protean_partition_leases, protean_events, protean_event_streams, protean_snapshots, protean_event_store_subscriptions, protean_event_store_dead_letters',
    );
    expect(result.stdout).toContain('db setup: [databases.legacy] skipped: managed = false');
    expect(result.stdout).toContain('db setup: done: 2 databases set up, 31 tables created, 0 already present, 1 skipped (managed = false)');
    expect(result.stdout).not.toContain(PASSWORD);
    expect(await tables(main)).toEqual([
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
    ]);
    expect(await tables(reporting)).toEqual([
      'daily_sales',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
    ]);
    expect(await tables(legacy)).toEqual([]);
  });

  it('db setup is safe to run again', async () => {
    const result = await cli(['setup']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  already present: order, order_line, protean_outbox, protean_outbox_positions, protean_inbox_checkpoints, protean_inbox_passed, protean_inbox_messages, protean_command_outcomes, protean_projections, protean_partition_members, protean_partition_leases, protean_events, protean_event_streams, protean_snapshots, protean_event_store_subscriptions, protean_event_store_dead_letters',
    );
    expect(result.stdout).toContain('db setup: done: 2 databases set up, 0 tables created, 31 already present, 1 skipped (managed = false)');
  });

  it('db truncate refuses without -y when there is no terminal to ask on', async () => {
    await queryDatabase(main.uri, `INSERT INTO "order" (id, customer, _version) VALUES ('o1', 'Ann', 0)`);
    const result = await cli(['truncate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /db truncate would DELETE every row of domain Shop in databases default, reporting; there is no terminal to confirm on, so pass -y/,
    );
    expect((await queryDatabase(main.uri, 'SELECT id FROM "order"')).length).toBe(1);
  });

  it('db truncate -y empties the tables and keeps them', async () => {
    const result = await cli(['truncate', '-y']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  emptied: order, order_line, protean_outbox, protean_outbox_positions, protean_inbox_checkpoints, protean_inbox_passed, protean_inbox_messages, protean_command_outcomes, protean_projections, protean_partition_members, protean_partition_leases, protean_events, protean_event_streams, protean_snapshots, protean_event_store_subscriptions, protean_event_store_dead_letters',
    );
    expect(result.stdout).toContain('db truncate: done: 2 databases emptied, 31 tables emptied, 1 skipped (managed = false)');
    expect((await queryDatabase(main.uri, 'SELECT id FROM "order"')).length).toBe(0);
    expect(await tables(main)).toEqual([
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
    ]);
  });

  it.skipIf(!hasScript)('db drop asks on a terminal and does nothing unless the answer is yes', async () => {
    const declined = await inTerminal(['db', 'drop'], 'n\n', project.root);
    expect(declined.output).toMatch(/DROP every table of domain Shop in databases default, reporting\? \[y\/N\]/);
    expect(declined.output).toContain('db drop cancelled; nothing was changed');
    expect(declined.code).toBe(1);
    expect(await tables(main)).toEqual([
      'order',
      'order_line',
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
    ]);

    const accepted = await inTerminal(['db', 'drop'], 'y\n', project.root);
    expect(accepted.code).toBe(0);
    expect(accepted.output).toContain('db drop: done: 2 databases dropped, 31 tables dropped, 1 skipped (managed = false)');
    expect(await tables(main)).toEqual([]);
    expect(await tables(reporting)).toEqual([]);
  });

  it('db setup-outbox creates only the outbox, inbox and event store tables', async () => {
    expect((await cli(['drop', '-y'])).code).toBe(0);
    const result = await cli(['setup-outbox']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('db setup-outbox: done: 2 databases set up, 28 tables created, 0 already present, 1 skipped (managed = false)');
    expect(await tables(main)).toEqual([
      'protean_command_outcomes',
      'protean_event_store_dead_letters',
      'protean_event_store_subscriptions',
      'protean_event_streams',
      'protean_events',
      'protean_inbox_checkpoints',
      'protean_inbox_messages',
      'protean_inbox_passed',
      'protean_outbox',
      'protean_outbox_positions',
      'protean_partition_leases',
      'protean_partition_members',
      'protean_projections',
      'protean_snapshots',
    ]);
    expect(await tables(legacy)).toEqual([]);
  });

  it('db drop -y skips the question', async () => {
    const result = await cli(['drop', '-y']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  dropped: protean_outbox, protean_outbox_positions, protean_inbox_checkpoints, protean_inbox_passed, protean_inbox_messages, protean_command_outcomes, protean_projections, protean_partition_members, protean_partition_leases, protean_events, protean_event_streams, protean_snapshots, protean_event_store_subscriptions, protean_event_store_dead_letters',
    );
    expect(await tables(main)).toEqual([]);
    expect(await tables(reporting)).toEqual([]);
  });

  it('fails with one clear line naming the database and the masked URI when it cannot connect', async () => {
    const broken = tempProject({
      'domain.ts': DOMAIN,
      'domain.toml': [
        'module = "domain.ts"',
        '[databases.default]',
        'provider = "postgresql"',
        `database_uri = "postgresql://app:${PASSWORD}@127.0.0.1:1/shop"`,
        '[databases.reporting]',
        'provider = "postgresql"',
        `database_uri = "${reporting.uri}"`,
        '',
      ].join('\n'),
    });
    try {
      const result = await runCli(['db', 'setup'], { cwd: broken.root, env: { PROTEAN_LOG_LEVEL: 'warn' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /DatabaseConnectionError: \[databases\.default\] cannot connect to PostgreSQL at postgresql:\/\/app:\*\*\*@127\.0\.0\.1:1\/shop: connection refused/,
      );
      expect(result.stderr + result.stdout).not.toContain(PASSWORD);
    } finally {
      broken.remove();
    }
  });
});

describe.skipIf(!up)('protean-ts db setup with a schema the role cannot use (issue 22)', { timeout: 120_000 }, () => {
  it('names the key, the schema and the role, and what its owner would run, instead of "permission denied"', async () => {
    const database = await createTempDatabase();
    const role = `pt_limited_${Math.random().toString(36).slice(2, 10)}`;
    await queryDatabase(database.uri, `CREATE ROLE ${role} LOGIN`);
    await queryDatabase(database.uri, 'CREATE SCHEMA owned_elsewhere');
    const project = (schema: string) =>
      tempProject({
        'domain.ts': DOMAIN,
        'domain.toml': [
          'module = "domain.ts"',
          '[databases.reporting]',
          'provider = "memory"',
          '[databases.default]',
          'provider = "postgresql"',
          `database_uri = "${database.uri.replace('postgresql://postgres@', `postgresql://${role}@`)}"`,
          `schema = "${schema}"`,
          '',
        ].join('\n'),
      });
    const owned = project('owned_elsewhere');
    const missing = project('brand_new');
    try {
      const inOwned = await runCli(['db', 'setup'], { cwd: owned.root, env: { PROTEAN_LOG_LEVEL: 'warn' } });
      expect(inOwned.code).toBe(1);
      expect(inOwned.stderr).toContain(
        `SchemaUnusableError: [databases.default] schema "owned_elsewhere" belongs to role "postgres", which has not granted role "${role}" USAGE and CREATE on it`,
      );
      expect(inOwned.stderr).toContain(`GRANT USAGE, CREATE ON SCHEMA "owned_elsewhere" TO "${role}"`);
      const notCreatable = await runCli(['db', 'setup'], { cwd: missing.root, env: { PROTEAN_LOG_LEVEL: 'warn' } });
      expect(notCreatable.code).toBe(1);
      expect(notCreatable.stderr).toContain(
        `SchemaUnusableError: [databases.default] schema "brand_new" does not exist and cannot be created (role "${role}" may not create schemas in this database)`,
      );
      expect(inOwned.stderr + notCreatable.stderr).not.toMatch(/\n\s+at /);
    } finally {
      owned.remove();
      missing.remove();
      await database.drop();
      await queryDatabase(SERVER_URI, `DROP ROLE IF EXISTS ${role}`);
    }
  });
});

/** Runs the command with a pseudo-terminal (util-linux `script`), typing `input`. */
function inTerminal(args: string[], input: string, cwd: string): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env, PROTEAN_LOG_LEVEL: 'warn' };
  delete env.NODE_OPTIONS;
  const command = [process.execPath, CLI_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (input && /\[y\/N\]/.test(output)) {
      child.stdin.write(input);
      input = '';
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('protean-ts db setup with a bad database_uri (issue 10: no secret printed)', { timeout: 120_000 }, () => {
  it.each([
    [
      'a key/value connection string',
      `database_uri = "host=127.0.0.1 password=${PASSWORD} dbname=shop"`,
      // Refused when domain.toml is loaded (so `config check` says it too), before any connection.
      'databases.default.database_uri: must be a URI starting with postgresql:// or postgres://, e.g. postgresql://app@localhost:5432/shop',
    ],
    ['a URI in a list', `database_uri = ["postgresql://postgres:${PASSWORD}@127.0.0.1/shop"]`, 'databases.default.database_uri: must be a string'],
    [
      'a schema name PostgreSQL reserves',
      `database_uri = "postgresql://postgres:${PASSWORD}@127.0.0.1/shop"\nschema = "pg_shop"`,
      'databases.default.schema: must be a plain PostgreSQL identifier (letters, digits and _, at most 63 characters, not starting with pg_), e.g. "shop" (got "pg_shop")',
    ],
    [
      'a URI typed into pool_size',
      `database_uri = "postgresql://127.0.0.1/shop"\npool_size = "postgresql://postgres:${PASSWORD}@127.0.0.1/shop"`,
      'databases.default.pool_size: must be an integer between 1 and 10000',
    ],
  ])('%s: exit 1 naming the key, password masked', async (_label, line, message) => {
    const project = tempProject({
      'domain.ts': DOMAIN,
      'domain.toml': `module = "domain.ts"\n[databases.reporting]\nprovider = "memory"\n[databases.default]\nprovider = "postgresql"\n${line}\n`,
    });
    try {
      const result = await runCli(['db', 'setup'], { cwd: project.root, env: { PROTEAN_LOG_LEVEL: 'warn' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    } finally {
      project.remove();
    }
  });
});
