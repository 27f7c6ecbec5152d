/**
 * The observatory's HTTP server: the page and its files, a JSON API per view, the actions
 * (outbox retry, dead-letter replay and purge) as POSTs, and one server-sent-event stream that
 * pushes the live numbers (outbox, subscriptions, message flow) every `refreshMs` to every open
 * page, sampled once for all of them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { Domain } from '@protean-ts/core';
import { collectStatus } from '@protean-ts/server/operations';
import { inspectDeadLetters, purgeDeadLetters, replayDeadLetters } from './dead-letters.js';
import { domainMap } from './domain-map.js';
import { messageCatalog } from '../contracts/catalog.js';
import { messageJourney } from './message-journey.js';
import { MessageFlowSampler } from './message-flow.js';
import { outboxView, retryOutboxRows } from './outbox-view.js';
import { ObservatoryRequestError } from './request-error.js';
import { isWildcard, RequestGuard, tokenCookie } from './request-guard.js';
import { securityHeaders } from './security-headers.js';
import { staticFile } from './static-files.js';

export interface ObservatoryOptions {
  domain: Domain;
  /** The domain module's path, shown on the map. */
  module: string;
  host: string;
  port: number;
  refreshMs: number;
  /** Other host names it is reached by (a reverse proxy's, a DNS name): `--allowed-host`. */
  allowedHosts?: readonly string[];
  /** The access token every API request must carry; null: none (loopback only). */
  token: string | null;
  /** Told about a sampling failure (the page shows it too); the stream goes on. */
  onError(error: unknown): void;
  /** Told about each request refused by the guard (another site, a wrong host name, no token). */
  onRefused?(refusal: { status: number; error: string; method: string; path: string; host: string; origin: string | null }): void;
}

export interface RunningObservatory {
  /** Where it listens (without the token). */
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
    return { at: status.takenAt, outbox: await outboxView(domain, status.outboxes), relays: status.relays ?? [], subscriptions: status.subscriptions, flow };
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
    'GET /api/catalog': async () => messageCatalog(domain),
    'GET /api/snapshot': () => snapshot(),
    'GET /api/journey': async (url) => messageJourney(domain, requiredParam(url, 'correlation')),
    'GET /api/dead-letters': async (url) => inspectDeadLetters(domain, requiredParam(url, 'subscription'), url.searchParams.get('stream') ?? undefined),
    'POST /api/outbox/retry': async (_url, body) => {
      const { database, ids } = body as { database?: unknown; ids?: unknown };
      return { retried: await retryOutboxRows(domain, requiredString(database, 'database'), rowIds(ids)) };
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

  const guard = new RequestGuard({ listenHost: options.host, allowedHosts: options.allowedHosts ?? [], token: options.token });
  const headers = securityHeaders((await staticFile('/'))?.body.toString('utf8') ?? '');
  const server: Server = createServer((request, response) => {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    void handle(request, response).catch((error: unknown) => {
      options.onError(error);
      if (!response.headersSent) reply(response, 500, { error: INTERNAL_ERROR });
      else response.end();
    });
  });

  const refuse = (request: IncomingMessage, response: ServerResponse, refusal: { status: number; error: string }) => {
    options.onRefused?.({
      ...refusal,
      method: request.method ?? '',
      path: truncated((request.url ?? '').split('?')[0]!),
      host: truncated(request.headers.host ?? ''),
      origin: request.headers.origin ?? null,
    });
    reply(response, refusal.status, { error: refusal.error });
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const hostRefused = guard.checkHost(request);
    if (hostRefused) return refuse(request, response, hostRefused);
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://observatory.invalid');
    } catch {
      return reply(response, 400, { error: 'the request path is not a valid URL path' });
    }
    if (request.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) return acceptToken(url, response);
    const isApi = url.pathname === '/events' || url.pathname.startsWith('/api/');
    if (isApi) {
      const tokenRefused = guard.checkToken(request);
      if (tokenRefused) return refuse(request, response, tokenRefused);
    }
    if (request.method === 'GET' && url.pathname === '/events') return openStream(response);
    const route = routes[`${request.method} ${url.pathname}`];
    if (route) {
      if (request.method === 'POST') {
        const crossSite = guard.checkSameOrigin(request);
        if (crossSite) return refuse(request, response, crossSite);
        // JSON only: a form posted from another site cannot send it without a CORS preflight, which is never granted.
        if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
          return reply(response, 415, { error: 'actions take a JSON body (Content-Type: application/json)' });
      }
      try {
        const body = request.method === 'POST' ? await readJson(request) : {};
        return reply(response, 200, await route(url, body));
      } catch (error) {
        if (error instanceof ObservatoryRequestError) return reply(response, 400, { error: error.message });
        options.onError(error);
        // The log has the cause; a database's own message (its statement, its schema) stays there.
        return reply(response, 500, { error: INTERNAL_ERROR });
      }
    }
    if (request.method === 'GET' && !isApi) {
      const file = await staticFile(url.pathname);
      if (file) {
        response.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-cache' });
        return void response.end(file.body);
      }
    }
    reply(response, 404, { error: `no ${request.method} ${truncated(url.pathname)}` });
  }

  /** `/?token=…` as printed: the token moves into an HttpOnly cookie and out of the address bar. */
  function acceptToken(url: URL, response: ServerResponse): void {
    const offered = url.searchParams.get('token') ?? '';
    if (!guard.tokenRequired) return void response.writeHead(302, { Location: '/' }).end();
    if (!guard.matches(offered))
      return reply(response, 401, {
        error: 'this is not the access token of this observatory start: open the URL it printed, or the one with the token you set',
      });
    response.writeHead(302, { Location: '/', 'Set-Cookie': tokenCookie(offered), 'Cache-Control': 'no-store' });
    response.end();
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
  const reachable = isWildcard(options.host) ? (externalAddress() ?? '127.0.0.1') : address.address;
  const shownHost = reachable.includes(':') ? `[${reachable}]` : reachable;
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

const INTERNAL_ERROR = 'the observatory could not answer this request; its log says why';

/** The first IPv4 address of a non-internal interface: what a wildcard bind is reached by. */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((entry) => !entry.internal && entry.family === 'IPv4')?.address;
}

function truncated(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ObservatoryRequestError(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new ObservatoryRequestError('the request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ObservatoryRequestError('the request body must be a JSON object');
  return body;
}

function requiredParam(url: URL, name: string): string {
  return requiredString(url.searchParams.get(name) ?? undefined, name);
}

function requiredString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ObservatoryRequestError(`"${name}" is required`);
  // PostgreSQL text cannot hold NUL: such a value names nothing, and the database's refusal is no answer.
  if (value.includes('\0')) throw new ObservatoryRequestError(`"${name}" must not contain NUL characters`);
  if (value.length > MAX_NAME_LENGTH) throw new ObservatoryRequestError(`"${name}" is over ${MAX_NAME_LENGTH} characters`);
  return value.trim();
}

const MAX_NAME_LENGTH = 1_000;

function optionalString(value: unknown, name: string): string | undefined {
  return value === undefined || value === null ? undefined : requiredString(value, name);
}

function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ObservatoryRequestError(`"${name}" must be a list of strings`);
  return (value as string[]).map((item) => requiredString(item, name));
}

/** Outbox row ids are whole numbers (bigint). */
function rowIds(value: unknown): string[] {
  const ids = stringList(value, 'ids');
  const bad = ids.find((id) => !/^[0-9]{1,19}$/.test(id));
  if (bad !== undefined) throw new ObservatoryRequestError(`"ids" must be outbox row ids (whole numbers), got "${truncated(bad)}"`);
  return ids;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
