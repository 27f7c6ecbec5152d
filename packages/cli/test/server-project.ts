/**
 * Temp projects for the server, outbox and dlq e2e tests: a TypeScript shop domain on its own
 * PostgreSQL database and Redis stream prefix (or memory/inline), a seed script that sends
 * commands asynchronously (into the outbox), and readers for what the handlers wrote.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createTemporaryDatabase, type TemporaryDatabase } from '@protean-ts/conformance/fixtures';
import { tempProject } from './cli-fixture.js';

/** tsx's loader by URL: the temp project has no node_modules/tsx of its own. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export const SHOP_DOMAIN = `
import { Domain, BaseAggregate, BaseEvent, BaseCommand, BaseCommandHandler, BaseEventHandler, field, handle } from '@protean-ts/core';

// The crash-loop test: every supervised worker dies while loading the domain.
if (process.env.PROTEAN_WORKER_ID && process.env.CRASH_WORKERS_AT_START) throw new Error('this worker crashes at start (test)');

export const domain = new Domain('Shop', { root: import.meta.url });

@domain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
}

@domain.aggregate()
export class Receipt extends BaseAggregate {
  @field.string({ required: true }) orderId!: string;
  @field.string() customer?: string;
}

@domain.event({ partOf: Order })
export class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
  @field.string() customer?: string;
}

@domain.command({ partOf: Order })
export class PlaceOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

@domain.commandHandler({ partOf: Order })
export class OrderCommands extends BaseCommandHandler {
  @handle(PlaceOrder) async place(command: PlaceOrder): Promise<void> {
    const order = Order.create({ customer: command.customer });
    order.raise(OrderPlaced.create({ orderId: order.id, customer: order.customer }));
    await domain.repositoryFor(Order).add(order);
  }
}

@domain.eventHandler({ partOf: Receipt, streamCategory: Order })
export class Receipts extends BaseEventHandler {
  @handle(OrderPlaced) async onPlaced(event: OrderPlaced): Promise<void> {
    if (event.customer === 'poison') throw new Error('cannot write a receipt for poison');
    await domain.repositoryFor(Receipt).add(Receipt.create({ orderId: event.orderId, customer: event.customer }));
  }
}
`;

const SEED = `
import { domain, PlaceOrder } from './domain.ts';
await domain.init();
for (const customer of process.argv.slice(2)) await domain.process(PlaceOrder.create({ customer }), { asynchronous: true });
await domain.close();
`;

// tsx applies a tsconfig only to the files it includes; this one covers the project and the
// linked framework sources, with the decorator settings protean-ts needs.
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    experimentalDecorators: true,
    useDefineForClassFields: false,
    allowImportingTsExtensions: true,
    noEmit: true,
  },
  include: ['/**/*'],
};

export interface ServerProject {
  cwd: string;
  /** Database URI, or null for the memory provider. */
  databaseUri: string | null;
  streamPrefix: string;
  /** Runs seed.ts with these arguments in a separate process; the shop's sends PlaceOrder for each customer (`asynchronous: true`). */
  seed(args: string[]): Promise<void>;
  /** Runs one of the project's scripts (see `scripts`) in a separate process; resolves with its stdout. */
  run(script: string, args?: string[]): Promise<string>;
  /** Customers with a receipt: what the event handler wrote to PostgreSQL. */
  receipts(): Promise<string[]>;
  query<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

export interface ServerProjectOptions {
  memory?: boolean;
  /** Extra TOML appended to domain.toml. */
  toml?: string;
  /** The broker's uri in domain.toml; default the shared Redis. */
  redisUri?: string;
  /** `postgresql://user@host:port` the domain.toml points at (the database is still created on the shared server). */
  databaseServerUri?: string;
  /** Another domain.ts and seed.ts instead of the shop's. */
  domain?: string;
  seed?: string;
  /** The shared broker the project uses: Redis (default) or NATS JetStream. */
  broker?: 'redis' | 'nats';
  /** Further scripts of the project, by file name (`client.ts`), for `run`. */
  scripts?: Record<string, string>;
  /** `[brokers.default] provider` (a kind the domain module registers), instead of "redis". */
  brokerProvider?: string;
  /** The lines of `[brokers.default]` instead of the Redis or NATS ones (e.g. a RabbitMQ broker). */
  brokerLines?: string[];
  /** Workspace packages the domain module imports besides core (e.g. 'redis'). */
  link?: string[];
  /** Further lines of `[server.stream_subscription]` (a TOML table cannot be repeated by `toml`). */
  streamSubscription?: string[];
  /** Further lines of `[server]`. */
  server?: string[];
  /** Root keys (before any table), e.g. `enable_outbox = false`. */
  root?: string[];
  /** Further lines of `[outbox]`, e.g. `partitions = 3`. */
  outbox?: string[];
}

export async function serverProject(options: ServerProjectOptions = {}): Promise<ServerProject> {
  const nats = options.broker === 'nats';
  // JetStream names allow only letters, digits, `_` and `-`.
  const streamPrefix = `t-cli-${randomBytes(4).toString('hex')}${nats ? '-' : ':'}`;
  let database: TemporaryDatabase | null = null;
  let infrastructure: string;
  if (options.memory) {
    infrastructure = '[databases.default]\nprovider = "memory"\n\n[brokers.default]\nprovider = "inline"\n';
  } else {
    database = await createTemporaryDatabase({ label: 'cli' });
    infrastructure = [
      '[databases.default]',
      'provider = "postgresql"',
      `database_uri = "${options.databaseServerUri ? `${options.databaseServerUri}/${database.name}` : database.uri}"`,
      'pool_size = 4',
      '',
      '[brokers.default]',
      ...(options.brokerLines ?? [
        `provider = "${options.brokerProvider ?? (nats ? 'nats' : 'redis')}"`,
        `uri = "${nats ? 'nats://127.0.0.1:4222' : (options.redisUri ?? 'redis://127.0.0.1:6379')}"`,
        `stream_prefix = "${streamPrefix}"`,
        'claim_idle_ms = 2000',
      ]),
      '',
    ].join('\n');
  }
  const toml = [
    'module = "domain.ts"',
    'event_processing = "async"',
    ...(options.root ?? []),
    '',
    infrastructure,
    '[server]',
    'tick_interval = 1',
    ...(options.server ?? []),
    '',
    '[server.stream_subscription]',
    'blocking_timeout_ms = 200',
    'max_retries = 1',
    'retry_delay_seconds = 0.05',
    ...(options.streamSubscription ?? []),
    '',
    '[server.health]',
    'port = 0',
    '',
    '[outbox]',
    'tick_interval = 0.2',
    ...(options.outbox ?? []),
    '',
    options.toml ?? '',
  ].join('\n');
  const files = {
    ...options.scripts,
    'domain.ts': options.domain ?? SHOP_DOMAIN,
    'seed.ts': options.seed ?? SEED,
    'domain.toml': toml,
    'tsconfig.json': JSON.stringify(TSCONFIG, null, 2),
  };
  // The shared bank fixture (bank-project.ts) comes from the conformance package.
  const usesConformance = Object.values(files).some((content) => content.includes("'@protean-ts/conformance"));
  const cwd = tempProject(files, { link: [...(options.link ?? []), ...(usesConformance ? ['conformance'] : [])] });
  // What the test's own queries use: the shared server, whatever domain.toml points at.
  const databaseUri = database?.uri ?? null;

  const query = async <R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> => {
    if (!database) throw new Error('this project uses the memory database');
    return database.query<R>(sql, params);
  };

  return {
    cwd,
    databaseUri,
    streamPrefix,
    seed: (args) => runScript(cwd, 'seed.ts', args).then(() => undefined),
    run: (script, args = []) => runScript(cwd, script, args),
    receipts: async () => (await query<{ customer: string }>('SELECT customer FROM receipt ORDER BY customer')).map((r) => r.customer),
    query,
    drop: async () => {
      await database?.drop();
    },
  };
}

function runScript(cwd: string, script: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--conditions=@protean-ts/source', '--import', TSX_LOADER, script, ...args], {
    cwd,
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(cwd, 'tsconfig.json'), PROTEAN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${script} exited with ${code}:\n${stderr}`))));
  });
}
