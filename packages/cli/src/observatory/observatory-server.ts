/**
 * The observatory's HTTP server: the page and its files, a JSON API per view, the actions
 * (outbox retry, dead-letter replay and purge) as POSTs, and one server-sent-event stream that
 * pushes the live numbers (outbox, subscriptions, message flow) every `refreshMs` to every open
 * page, sampled once for all of them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Domain } from '@protean-ts/core';
import { collectStatus } from '@protean-ts/server';
import { inspectDeadLetters, purgeDeadLetters, replayDeadLetters } from './dead-letters.js';
import { domainMap } from './domain-map.js';
import { isLoopbackHost } from './listen-address.js';
import { messageJourney } from './message-journey.js';
import { MessageFlowSampler } from './message-flow.js';
import { outboxView, retryOutboxRows } from './outbox-view.js';
import { ObservatoryRequestError } from './request-error.js';
import { staticFile } from './static-files.js';

export interface ObservatoryOptions {
  domain: Domain;
  /** The domain module's path, shown on the map. */
  module: string;
  host: string;
  port: number;
  refreshMs: number;
  /** Told about a sampling failure (the page shows it too); the stream goes on. */
  onError(error: unknown): void;
}

export interface RunningObservatory {
  url: string;
  close(): Promise<void>;
}

/** Request bodies are a handful of ids; anything larger is a mistake or an attack. */
const MAX_BODY_BYTES = 64 * 1024;

export async function startObservatory(options: ObservatoryOptions): Promise<RunningObservatory> {
  const { domain } = options;
  const sampler = new MessageFlowSampler(domain);
  const clients = new Set<ServerResponse>();
  let timer: NodeJS.Timeout | undefined;
  let sampling = false;

  const snapshot = async () => {
    // The same numbers `protean-ts status` prints, plus the rows and rates only the page shows.
    const [status, flow] = await Promise.all([collectStatus(domain), sampler.sample()]);
    return { at: status.takenAt, outbox: await outboxView(domain, status.outboxes), subscriptions: status.subscriptions, flow };
  };

  const broadcast = async () => {
    if (sampling || clients.size === 0) return;
    sampling = true;
    let message: string;
    try {
      message = `event: snapshot\ndata: ${JSON.stringify(await snapshot())}\n\n`;
    } catch (error) {
      options.onError(error);
      message = `event: failure\ndata: ${JSON.stringify({ at: new Date().toISOString(), message: errorMessage(error) })}\n\n`;
    } finally {
      sampling = false;
    }
    for (const client of clients) client.write(message);
  };

  const routes: Record<string, (url: URL, body: unknown) => Promise<unknown>> = {
    'GET /api/map': async () => domainMap(domain, options.module),
    'GET /api/snapshot': () => snapshot(),
    'GET /api/journey': async (url) => messageJourney(domain, requiredParam(url, 'correlation')),
    'GET /api/dead-letters': async (url) => inspectDeadLetters(domain, requiredParam(url, 'subscription'), url.searchParams.get('stream') ?? undefined),
    'POST /api/outbox/retry': async (_url, body) => {
      const { database, ids } = body as { database?: unknown; ids?: unknown };
      return { retried: await retryOutboxRows(domain, requiredString(database, 'database'), stringList(ids, 'ids')) };
    },
    'POST /api/dead-letters/replay': async (_url, body) => {
      const { subscription, stream, ids } = body as { subscription?: unknown; stream?: unknown; ids?: unknown };
      return replayDeadLetters(
        domain,
        requiredString(subscription, 'subscription'),
        optionalString(stream, 'stream'),
        ids === undefined ? undefined : stringList(ids, 'ids'),
      );
    },
    'POST /api/dead-letters/purge': async (_url, body) => {
      const { subscription, stream } = body as { subscription?: unknown; stream?: unknown };
      return purgeDeadLetters(domain, requiredString(subscription, 'subscription'), optionalString(stream, 'stream'));
    },
  };

  const loopbackOnly = isLoopbackHost(options.host);
  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, { error: errorMessage(error) });
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://observatory.invalid');
    // A page on another site could otherwise reach a loopback server through a DNS name that
    // resolves to 127.0.0.1 (DNS rebinding): on loopback, only loopback names are answered.
    if (loopbackOnly && !isLoopbackHost(hostName(request.headers.host ?? '')))
      return reply(response, 421, { error: 'the observatory answers only to loopback host names' });
    if (request.method === 'GET' && url.pathname === '/events') return openStream(response);
    const route = routes[`${request.method} ${url.pathname}`];
    if (route) {
      // JSON only: a form posted from another site cannot send it without a CORS preflight, which is never granted.
      if (request.method === 'POST' && !(request.headers['content-type'] ?? '').startsWith('application/json')) {
        return reply(response, 415, { error: 'actions take a JSON body (Content-Type: application/json)' });
      }
      try {
        const body = request.method === 'POST' ? await readJson(request) : {};
        return reply(response, 200, await route(url, body));
      } catch (error) {
        if (error instanceof ObservatoryRequestError) return reply(response, 400, { error: error.message });
        options.onError(error);
        return reply(response, 500, { error: errorMessage(error) });
      }
    }
    if (request.method === 'GET') {
      const file = await staticFile(url.pathname);
      if (file) {
        response.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-cache' });
        return void response.end(file.body);
      }
    }
    reply(response, 404, { error: `no ${request.method} ${url.pathname}` });
  }

  function openStream(response: ServerResponse): void {
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    response.write(`retry: ${options.refreshMs}\n\n`);
    clients.add(response);
    response.on('close', () => clients.delete(response));
    void broadcast();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  timer = setInterval(() => void broadcast(), options.refreshMs);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    async close() {
      clearInterval(timer);
      for (const client of clients) client.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify(body));
}

function hostName(header: string): string {
  const match = /^(\[[^\]]+\]|[^:]+)(:\d+)?$/.exec(header);
  return match ? match[1]! : header;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ObservatoryRequestError(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new ObservatoryRequestError('the request body is not valid JSON');
  }
}

function requiredParam(url: URL, name: string): string {
  return requiredString(url.searchParams.get(name) ?? undefined, name);
}

function requiredString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ObservatoryRequestError(`"${name}" is required`);
  return value.trim();
}

function optionalString(value: unknown, name: string): string | undefined {
  return value === undefined || value === null ? undefined : requiredString(value, name);
}

function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ObservatoryRequestError(`"${name}" must be a list of strings`);
  return value as string[];
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
