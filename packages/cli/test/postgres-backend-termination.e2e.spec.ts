/**
 * `protean-ts server --workers 2` while PostgreSQL terminates its backends again and again (what
 * a restart does to every connection), with a handler that reads through its unit of work in a
 * `Promise.all`, as the example shop's stock reservation does. node-postgres must never be handed
 * a statement while one is running on the same connection: its "Calling client.query() when the
 * client is already executing a query" DeprecationWarning appeared 7–17 times a run before.
 * Every command is still handled once the terminations stop.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { LogWatcher, type LogLine } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { SHOP_DOMAIN, serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);
const CUSTOMERS = Array.from({ length: 400 }, (_, i) => `c${String(i).padStart(3, '0')}`);

const isMsg = (msg: string, workerId?: number) => (r: LogLine) => r.msg === msg && (workerId === undefined || r.workerId === workerId);

describe.skipIf(!up)('PostgreSQL backends terminated under a running server', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({
      // Several reads of one unit of work at once, like the shop's loadStock.
      domain: SHOP_DOMAIN.replace(
        "if (event.customer === 'poison')",
        "await Promise.all([event.orderId, `${event.orderId}-a`, `${event.orderId}-b`, `${event.orderId}-c`].map((id) => domain.repositoryFor(Receipt).find(id)));\n    if (event.customer === 'poison')",
      ),
    });
    // A handler cut off by a termination is retried, not dead-lettered.
    const toml = path.join(project.cwd, 'domain.toml');
    fs.writeFileSync(toml, fs.readFileSync(toml, 'utf8').replace('max_retries = 1', 'max_retries = 50'));
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
  });

  it('regression: no statement is queued on a busy connection (no DeprecationWarning), and every command is handled', async () => {
    // Committed before the server starts (the seed's own connections are not to be terminated).
    await project.seed(CUSTOMERS);
    const child = startCli(['server', '--workers', '2', '--grace', '5'], { cwd: project.cwd });
    const logs = new LogWatcher(child);
    const database = project.databaseUri!.split('/').pop()!;
    const admin = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    try {
      await logs.waitFor(isMsg('worker ready', 1), 60_000, 'worker 1');
      await logs.waitFor(isMsg('worker ready', 2), 60_000, 'worker 2');
      let terminated = 0;
      const until = Date.now() + 10_000;
      while (Date.now() < until && (await project.receipts()).length < CUSTOMERS.length) {
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'protean-ts:%'",
          [database],
        );
        terminated += rowCount ?? 0;
      }
      expect(terminated).toBeGreaterThan(10);
      await eventually(async () => (await project.receipts()).length === CUSTOMERS.length, 60_000, 'every receipt');
      expect(await project.receipts()).toEqual(CUSTOMERS);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await admin.end();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const queued = [
      ...logs.records.filter((r) => r.msg.includes('already executing a query')).map((r) => JSON.stringify(r)),
      ...logs.text.filter((l) => l.includes('already executing a query')),
    ];
    expect(queued).toEqual([]);
    // Every line stays a JSON record through the outage.
    expect(logs.text).toEqual([]);
  }, 180_000);
});
