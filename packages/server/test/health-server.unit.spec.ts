import { afterEach, describe, expect, it } from 'vitest';
import { getLogger } from '@protean-ts/core';
import { HealthServer } from '../src/health/health-server.js';
import { healthReport, type HealthReport } from '../src/health/health-report.js';

const logger = getLogger('health-test');

describe('HealthServer', () => {
  let server: HealthServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  async function serve(check: () => Promise<HealthReport>): Promise<string> {
    server = new HealthServer({ host: '127.0.0.1', port: 0, check, logger, checkTimeoutMs: 300 });
    const port = await server.start();
    expect(port).toBeGreaterThan(0);
    return `http://127.0.0.1:${port}`;
  }

  it('answers /livez, /readyz and /healthz when every check is ok', async () => {
    const base = await serve(async () => healthReport([{ name: 'database:default', kind: 'database', ok: true }]));
    const live = await fetch(`${base}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'alive', pid: process.pid });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', failing: [] });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', checks: [{ name: 'database:default', ok: true }] });
  });

  it('answers 503 naming the failing checks, while /livez stays 200', async () => {
    const base = await serve(async () =>
      healthReport([
        { name: 'database:default', kind: 'database', ok: true },
        { name: 'broker:default', kind: 'broker', ok: false, detail: 'ping failed' },
      ]),
    );
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not ready', failing: ['broker:default'] });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { checks: unknown[] }).checks[1]).toMatchObject({ name: 'broker:default', ok: false, detail: 'ping failed' });
  });

  it('counts a hanging or throwing check as not ready instead of hanging the probe', async () => {
    const hanging = await serve(() => new Promise<HealthReport>(() => undefined));
    const res = await fetch(`${hanging}/readyz`);
    expect(res.status).toBe(503);
    await server!.stop();
    const throwing = await serve(async () => {
      throw new Error('boom');
    });
    expect((await fetch(`${throwing}/healthz`)).status).toBe(503);
    expect((await fetch(`${throwing}/nope`)).status).toBe(404);
  });

  it('says which setting to change when the port is taken', async () => {
    const base = await serve(async () => healthReport([]));
    const port = Number(new URL(base).port);
    const second = new HealthServer({ host: '127.0.0.1', port, check: async () => healthReport([]), logger });
    await expect(second.start()).rejects.toThrow(/\[server\.health\] port/);
  });

  it('serves metrics at the configured path in the Prometheus text format, and lists the path among the others', async () => {
    server = new HealthServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      check: async () => healthReport([]),
      metrics: { path: '/prom', scrape: async () => '# TYPE up gauge\nup 1\n' },
    });
    const base = `http://127.0.0.1:${await server.start()}`;
    const metrics = await fetch(`${base}/prom`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await metrics.text()).toBe('# TYPE up gauge\nup 1\n');
    const missing = await fetch(`${base}/metrics`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not found', paths: ['/livez', '/readyz', '/healthz', '/prom'] });
  });

  it('answers 500 naming the problem when a scrape fails', async () => {
    server = new HealthServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      check: async () => healthReport([]),
      metrics: {
        path: '/metrics',
        scrape: async () => {
          throw new Error('database is down');
        },
      },
    });
    const base = `http://127.0.0.1:${await server.start()}`;
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(500);
    expect(await metrics.json()).toEqual({ error: 'metrics scrape failed: database is down' });
  });
});
