/**
 * Who may talk to the observatory, checked before any route: its pages act (outbox retry,
 * dead-letter replay and purge), so another site must not reach them through the visitor's
 * browser, and, bound beyond loopback, a visitor needs the per-start access token.
 *
 * - `Host` must name the observatory: a loopback name on loopback, else one of the addresses it
 *   listens on or an `--allowed-host`. A page on evil.example whose name an attacker points at
 *   the machine (DNS rebinding) sends `Host: evil.example` and is refused.
 * - A state-changing request from a browser must come from the observatory's own page: `Origin`
 *   the request's own origin, `Sec-Fetch-Site` same-origin (a non-browser client sends neither).
 * - With a token, every API request and the event stream carry it, in the cookie the page gets
 *   from the printed `/?token=…` URL (HttpOnly, SameSite=Strict: never sent by another site) or
 *   as `Authorization: Bearer <token>`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import os from 'node:os';
import { isLoopbackHost } from './listen-address.js';

export const TOKEN_COOKIE = 'protean_observatory_token';

export interface RequestGuardOptions {
  /** The address the server listens on (`--host`). */
  listenHost: string;
  /** Other names the observatory is reached by (`--allowed-host`): a reverse proxy's, a DNS name. */
  allowedHosts: readonly string[];
  /** The access token; null when none is required (loopback without `--token`). */
  token: string | null;
}

/** Why a request is refused: the status and a message that says what to do. */
export interface Refusal {
  status: number;
  error: string;
}

export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly loopbackServed: boolean;
  private readonly token: Buffer | null;

  constructor(private readonly options: RequestGuardOptions) {
    this.loopbackServed = isLoopbackHost(options.listenHost) || isWildcard(options.listenHost);
    this.hosts = new Set([...options.allowedHosts, ...servedAddresses(options.listenHost)].map(normalHost));
    this.token = options.token === null ? null : digest(options.token);
  }

  get tokenRequired(): boolean {
    return this.token !== null;
  }

  /** The refusal of a request whose Host header does not name the observatory; null when it does. */
  checkHost(request: IncomingMessage): Refusal | null {
    const host = normalHost(hostName(request.headers.host ?? ''));
    if ((this.loopbackServed && isLoopbackHost(host)) || this.hosts.has(host)) return null;
    const named = this.options.allowedHosts.length > 0 ? ` or ${this.options.allowedHosts.join(', ')}` : '';
    return {
      status: 421,
      error: `the observatory answers to the addresses it listens on${named}, not to "${truncate(host)}"; reach it by one of them, or start it with --allowed-host ${truncate(host)} if that name is yours`,
    };
  }

  /** The refusal of a state-changing request a browser sent from another site; null when it is the page's own (or no browser's). */
  checkSameOrigin(request: IncomingMessage): Refusal | null {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      return { status: 403, error: `actions are taken from the observatory's own page only (Sec-Fetch-Site: ${truncate(String(site))})` };
    const origin = request.headers.origin;
    if (origin !== undefined && origin.toLowerCase() !== `http://${(request.headers.host ?? '').toLowerCase()}`)
      return { status: 403, error: `actions are taken from the observatory's own page only, not from ${truncate(origin)}` };
    return null;
  }

  /** The refusal of a request without the access token, when one is required; null otherwise. */
  checkToken(request: IncomingMessage): Refusal | null {
    if (this.token === null) return null;
    const offered = bearer(request.headers.authorization) ?? cookie(request.headers.cookie, TOKEN_COOKIE);
    if (offered !== undefined && this.matches(offered)) return null;
    return {
      status: 401,
      error:
        'this observatory needs its access token: open the URL `protean-ts observatory` printed (…/?token=…), ' +
        'or send the token as Authorization: Bearer <token>',
    };
  }

  /** Whether a token offered in the URL is the access token. */
  matches(offered: string): boolean {
    return this.token !== null && timingSafeEqual(digest(offered), this.token);
  }
}

/** A random token for one start of the observatory: 32 bytes, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The cookie that carries the token from the printed URL to the page's requests. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** The Host names a client may send to reach an observatory listening on `listenHost`. */
function servedAddresses(listenHost: string): string[] {
  if (!isWildcard(listenHost)) return [listenHost];
  const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
  return [...addresses, os.hostname()];
}

/** `example.com` of `example.com:9000`, `::1` of `[::1]:9000`. */
export function hostName(header: string): string {
  const match = /^(\[[^\]]+\]|[^:]+)(:\d+)?$/.exec(header);
  return match ? match[1]! : header;
}

function normalHost(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return isIP(bare) === 0 ? bare.replace(/\.$/, '') : bare;
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) {
      try {
        return decodeURIComponent(value.join('='));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Compared as digests, so tokens of any length compare in constant time. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function truncate(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
