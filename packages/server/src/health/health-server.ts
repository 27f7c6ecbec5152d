/**
 * A small node:http server for orchestrators: `/livez` (the process answers), `/readyz`
 * (every dependency and subscription is fine: 200, else 503), `/healthz` (the same, in detail)
 * and, when given, Prometheus metrics (`/metrics` by default, `[server.health] metrics_path`).
 * It binds to 127.0.0.1 by default; port 0 picks a free port, which `start` returns and logs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@protean-ts/core';
import type { HealthReport } from './health-report.js';
import { PROMETHEUS_CONTENT_TYPE } from '../metrics/prometheus-text.js';

/** The metrics endpoint: its path and the exposition text of one scrape. */
export interface MetricsEndpoint {
  path: string;
  scrape(): Promise<string>;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  /** Runs the checks; called on every `/readyz` and `/healthz` request. */
  check: () => Promise<HealthReport>;
  logger: Logger;
  /** A check that takes longer counts as failed, so a probe never hangs on a dead dependency. */
  checkTimeoutMs?: number;
  /** Serves Prometheus metrics too; absent when `[server.health] metrics = false`. */
  metrics?: MetricsEndpoint;
}

export class HealthServer {
  private server: http.Server | null = null;
  private readonly startedAt = Date.now();

  constructor(private readonly options: HealthServerOptions) {}

  /** Listens; resolves to the bound port. A taken port rejects with an error naming the setting. */
  async start(): Promise<number> {
    const server = http.createServer((req, res) => void this.route(req, res));
    // Probes use short-lived connections; keep-alive sockets would hold `close()` open.
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const where = `${this.options.host}:${this.options.port}`;
        const hint = err.code === 'EADDRINUSE' ? `port is in use; set [server.health] port in domain.toml to a free port (0 picks one)` : err.message;
        reject(new Error(`Health server cannot listen on ${where}: ${hint}`, { cause: err }));
      });
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.options.logger.info('health endpoints listening', {
      url: `http://${this.options.host}:${port}`,
      paths: this.paths(),
    });
    return port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'method not allowed' });
    if (path === '/livez') {
      return send(res, 200, { status: 'alive', pid: process.pid, uptimeSeconds: this.uptimeSeconds() });
    }
    if (this.options.metrics && path === this.options.metrics.path) return this.serveMetrics(res, this.options.metrics);
    if (path !== '/readyz' && path !== '/healthz') {
      return send(res, 404, { error: 'not found', paths: this.paths() });
    }
    const report = await this.runChecks();
    const status = report.ready ? 200 : 503;
    if (path === '/readyz') {
      const failing = report.checks.filter((c) => !c.ok).map((c) => c.name);
      const notes = Object.fromEntries(report.checks.filter((c) => c.note).map((c) => [c.name, c.note]));
      return send(res, status, { status: report.ready ? 'ready' : 'not ready', failing, ...(Object.keys(notes).length ? { notes } : {}) });
    }
    return send(res, status, {
      status: report.ready ? 'ok' : 'degraded',
      pid: process.pid,
      uptimeSeconds: this.uptimeSeconds(),
      checks: report.checks,
    });
  }

  private paths(): string[] {
    return ['/livez', '/readyz', '/healthz', ...(this.options.metrics ? [this.options.metrics.path] : [])];
  }

  private async serveMetrics(res: http.ServerResponse, metrics: MetricsEndpoint): Promise<void> {
    try {
      const text = await metrics.scrape();
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text), connection: 'close' });
      res.end(text);
    } catch (err) {
      this.options.logger.warn('metrics scrape failed', { error: err instanceof Error ? err.message : String(err) });
      send(res, 500, { error: `metrics scrape failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  private async runChecks(): Promise<HealthReport> {
    const timeoutMs = this.options.checkTimeoutMs ?? 3000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<HealthReport>((resolve) => {
      timer = setTimeout(
        () => resolve({ ready: false, checks: [{ name: 'checks', kind: 'engine', ok: false, detail: `timed out after ${timeoutMs} ms` }] }),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.options.check(), timeout]);
    } catch (err) {
      this.options.logger.warn('health check failed', { error: err instanceof Error ? err.message : String(err) });
      return { ready: false, checks: [{ name: 'checks', kind: 'engine', ok: false, detail: String(err) }] };
    } finally {
      clearTimeout(timer);
    }
  }

  private uptimeSeconds(): number {
    return Math.round((Date.now() - this.startedAt) / 1000);
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' });
  res.end(text);
}
