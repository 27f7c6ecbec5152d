import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { LogWatcher } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { stopServer } from './stop-server.js';

const up = await servicesUp(POSTGRES, REDIS);

const CUSTOMERS = Array.from({ length: 40 }, (_, i) => `customer-${i}`);

describe.skipIf(!up)('/metrics of protean-ts server --workers 2 (PostgreSQL, Redis)', () => {
  let project: ServerProject;
  let server: ChildProcess | null = null;
  let url = '';
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });

  beforeAll(async () => {
    project = await serverProject();
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
    server = startCli(['server', '--workers', '2'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info' } });
    const logs = new LogWatcher(server);
    const listening = await logs.waitFor((r) => r.msg === 'health endpoints listening', 90_000, 'the supervisor health server');
    url = String(listening.url);
    expect(listening.paths).toContain('/metrics');
    for (const id of [1, 2]) await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === id, 90_000, `worker ${id} ready`);
  }, 120_000);
  afterAll(async () => {
    await stopServer(server);
    await project?.drop();
  }, 60_000);

  const scrape = async (): Promise<PrometheusFamily[]> => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    histogramTypes = [...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((m) => m[1]!);
    // parse-prometheus-text-format folds every series of a histogram into one unlabelled sample
    // (it only supports histograms without labels), so a histogram is read as its _count, _sum
    // and _bucket series: without its TYPE line, each is a family of its own.
    return parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ''));
  };
  let histogramTypes: string[] = [];
  /** Every sample named `name` (the series of a histogram's _count come as several families: see scrape). */
  const family = (families: PrometheusFamily[], name: string) => {
    const found = families.filter((f) => f.name === name);
    if (found.length === 0) throw new Error(`no metric ${name} in the scrape (got ${families.map((f) => f.name).join(', ')})`);
    return { name, type: found[0]!.type, metrics: found.flatMap((f) => f.metrics) };
  };
  const matching = (samples: PrometheusSample[], labels: Record<string, string>) =>
    samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  const total = (families: PrometheusFamily[], name: string, labels: Record<string, string>) =>
    matching(family(families, name).metrics, labels).reduce((n, s) => n + Number(s.value), 0);

  it('reports what both workers handled, summed, and outbox counts that match the database', async () => {
    await project.seed([...CUSTOMERS, 'poison']);
    // Handled (or dead-lettered) end to end: every receipt written and the poison letter set aside.
    await eventually(async () => (await project.receipts()).length === CUSTOMERS.length, 90_000, 'every receipt');
    await eventually(
      async () => {
        const families = await scrape();
        return (
          total(families, 'protean_subscription_dead_letters', { messaging_consumer_group_name: 'Receipts' }) === 1 &&
          total(families, 'protean_subscription_pending', {}) === 0
        );
      },
      60_000,
      'the poison message dead-lettered',
    );

    const families = await scrape();
    const outbox = Object.fromEntries(
      (await project.query<{ status: string; n: string }>('SELECT status, count(*)::text AS n FROM protean_outbox GROUP BY status')).map((r) => [
        r.status,
        Number(r.n),
      ]),
    );
    // 41 commands and 41 events, all published.
    expect(outbox).toEqual({ published: 2 * (CUSTOMERS.length + 1) });
    for (const status of ['pending', 'processing', 'failed', 'abandoned', 'scheduled', 'published']) {
      expect(total(families, 'protean_outbox_rows', { protean_database: 'default', protean_outbox_status: status }), status).toBe(outbox[status] ?? 0);
    }
    expect(total(families, 'protean_outbox_published_total', {})).toBe(outbox.published);
    expect(total(families, 'protean_outbox_abandoned_total', {})).toBe(0);
    expect(total(families, 'protean_outbox_oldest_pending_age', { protean_database: 'default' })).toBe(0);

    // Handled totals across both workers.
    const consumed = 'messaging_client_consumed_messages_total';
    expect(total(families, consumed, { messaging_consumer_group_name: 'OrderCommands', protean_outcome: 'handled' })).toBe(CUSTOMERS.length + 1);
    expect(total(families, consumed, { messaging_consumer_group_name: 'Receipts', protean_outcome: 'handled' })).toBe(CUSTOMERS.length);
    expect(total(families, consumed, { messaging_consumer_group_name: 'Receipts', protean_outcome: 'dead_lettered' })).toBe(1);
    // max_retries = 1: the poison message was tried twice.
    expect(total(families, 'protean_subscription_retries_total', { messaging_consumer_group_name: 'Receipts' })).toBe(1);
    const handledBy = new Set(matching(family(families, consumed).metrics, { protean_outcome: 'handled' }).map((s) => s.labels?.messaging_system));
    expect([...handledBy]).toEqual(['redis']);

    // One duration per handler attempt: 41 commands; 40 receipts plus two failed attempts of the poison one.
    expect(histogramTypes).toEqual(['messaging_process_duration']);
    const attempts = (labels: Record<string, string>) => total(families, 'messaging_process_duration_count', labels);
    expect(attempts({ messaging_consumer_group_name: 'OrderCommands' })).toBe(CUSTOMERS.length + 1);
    expect(attempts({ messaging_consumer_group_name: 'Receipts' })).toBe(CUSTOMERS.length + 2);
    expect(attempts({ messaging_consumer_group_name: 'Receipts', error_type: 'Error' })).toBe(2);
    const buckets = matching(family(families, 'messaging_process_duration_bucket').metrics, { messaging_consumer_group_name: 'OrderCommands', le: '+Inf' });
    expect(buckets.reduce((n, s) => n + Number(s.value), 0)).toBe(CUSTOMERS.length + 1);

    // The backlog, read once (not once per worker).
    for (const group of ['OrderCommands', 'Receipts']) {
      expect(matching(family(families, 'protean_subscription_lag').metrics, { messaging_consumer_group_name: group }).map((s) => Number(s.value))).toEqual([0]);
      expect(
        matching(family(families, 'protean_subscription_consumers').metrics, { messaging_consumer_group_name: group }).map((s) => Number(s.value)),
      ).toEqual([2]);
    }
  }, 180_000);
});

describe.skipIf(!up)('/metrics of a single-process protean-ts server, and turning it off', () => {
  let project: ServerProject;
  // serverProject writes [server.health] itself; these settings come in through environment tables.
  const ENVIRONMENTS = '[moved.server.health]\nmetrics_path = "/internal/prom"\n\n[off.server.health]\nmetrics = false\n';

  beforeAll(async () => {
    project = await serverProject({ toml: ENVIRONMENTS });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd, timeoutMs: 90_000 });
    expect(setup.code, setup.stderr).toBe(0);
  }, 90_000);
  afterAll(async () => {
    await project?.drop();
  });

  const withServer = async (environment: string, work: (url: string, paths: string[]) => Promise<void>) => {
    const child = startCli(['server'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info', PROTEAN_ENV: environment } });
    const logs = new LogWatcher(child);
    try {
      const listening = await logs.waitFor((r) => r.msg === 'health endpoints listening', 90_000, 'the health server');
      await logs.waitFor((r) => r.msg === 'engine started', 90_000, 'the engine');
      await work(String(listening.url), listening.paths as string[]);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };

  it('serves the metrics at metrics_path from the one process', async () => {
    await project.seed(['Ann', 'Bob']);
    await withServer('moved', async (url, paths) => {
      expect(paths).toEqual(['/livez', '/readyz', '/healthz', '/internal/prom']);
      await eventually(async () => (await project.receipts()).length === 2, 60_000, 'both receipts');
      const scrapeOnce = async () => {
        const res = await fetch(`${url}/internal/prom`);
        expect(res.status).toBe(200);
        return parsePrometheusTextFormat((await res.text()).replace(/^# TYPE \S+ histogram$/gm, ''));
      };
      // Receipts acks shortly after its handler commits: wait for the counter to catch up.
      const families = await eventually(
        async () => {
          const scraped = await scrapeOnce();
          const handled = scraped.find((f) => f.name === 'messaging_client_consumed_messages_total')?.metrics ?? [];
          const receipts = handled.filter((m) => m.labels?.messaging_consumer_group_name === 'Receipts' && m.labels.protean_outcome === 'handled');
          return receipts.length === 1 && Number(receipts[0]!.value) === 2 ? scraped : null;
        },
        30_000,
        'two receipts counted',
      );
      const rows = families.find((f) => f.name === 'protean_outbox_rows')!.metrics;
      expect(rows.find((m) => m.labels?.protean_outbox_status === 'published')?.value).toBe('4');
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
    });
  }, 180_000);

  it('serves no metrics with [server.health] metrics = false', async () => {
    await withServer('off', async (url, paths) => {
      expect(paths).toEqual(['/livez', '/readyz', '/healthz']);
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      expect((await fetch(`${url}/livez`)).status).toBe(200);
    });
  }, 120_000);
});
