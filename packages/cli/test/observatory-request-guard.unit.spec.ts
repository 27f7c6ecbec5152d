import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { RequestGuard, TOKEN_COOKIE } from '../src/observatory/request-guard.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const TOKEN = 'a-token-of-some-length';

describe('the observatory request guard', () => {
  it('on loopback answers loopback names only, and names an --allowed-host', () => {
    const guard = new RequestGuard({ listenHost: '127.0.0.1', allowedHosts: ['dash.internal'], token: null });
    for (const host of ['127.0.0.1:9000', 'localhost:9000', '[::1]:9000', 'dash.internal', 'DASH.internal.:9000'])
      expect(guard.checkHost(request({ host }))).toBeNull();
    // DNS rebinding: a name of the attacker's that resolves to 127.0.0.1.
    const refused = guard.checkHost(request({ host: 'evil.example:9000' }));
    expect(refused).toMatchObject({ status: 421 });
    expect(refused!.error).toContain('not to "evil.example"');
    expect(refused!.error).toContain('--allowed-host evil.example');
    expect(guard.checkHost(request({ host: 'evil.localhost:9000' }))).toMatchObject({ status: 421 });
    expect(guard.checkHost(request({}))).toMatchObject({ status: 421 });
  });

  it('on every interface answers the machine own addresses and names, not any Host', () => {
    const guard = new RequestGuard({ listenHost: '0.0.0.0', allowedHosts: [], token: TOKEN });
    const address = Object.values(os.networkInterfaces()).flatMap((l) => l ?? [])[0]!.address;
    expect(guard.checkHost(request({ host: address.includes(':') ? `[${address}]:1` : `${address}:1` }))).toBeNull();
    expect(guard.checkHost(request({ host: os.hostname() }))).toBeNull();
    expect(guard.checkHost(request({ host: 'localhost:9000' }))).toBeNull();
    expect(guard.checkHost(request({ host: 'evil.example' }))).toMatchObject({ status: 421 });
  });

  it('on one address answers that address, not a rebinding name', () => {
    const guard = new RequestGuard({ listenHost: '10.1.2.3', allowedHosts: [], token: TOKEN });
    expect(guard.checkHost(request({ host: '10.1.2.3:9000' }))).toBeNull();
    expect(guard.checkHost(request({ host: 'localhost:9000' }))).toMatchObject({ status: 421 });
    expect(guard.checkHost(request({ host: 'evil.example:9000' }))).toMatchObject({ status: 421 });
  });

  it('refuses a state-changing request another site sent, accepts the page own and a non-browser client', () => {
    const guard = new RequestGuard({ listenHost: '127.0.0.1', allowedHosts: [], token: null });
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000', origin: 'http://127.0.0.1:9000', 'sec-fetch-site': 'same-origin' }))).toBeNull();
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000' }))).toBeNull();
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000', origin: 'http://evil.example' }))).toMatchObject({ status: 403 });
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000', origin: 'http://127.0.0.1:9001' }))).toMatchObject({ status: 403 });
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000', 'sec-fetch-site': 'cross-site' }))).toMatchObject({ status: 403 });
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000', 'sec-fetch-site': 'same-site' }))).toMatchObject({ status: 403 });
    expect(guard.checkSameOrigin(request({ host: '127.0.0.1:9000', origin: 'null' }))).toMatchObject({ status: 403 });
  });

  it('with a token, takes it from the cookie or a bearer header, and nothing else', () => {
    const guard = new RequestGuard({ listenHost: '0.0.0.0', allowedHosts: [], token: TOKEN });
    expect(guard.tokenRequired).toBe(true);
    expect(guard.checkToken(request({ cookie: `other=1; ${TOKEN_COOKIE}=${TOKEN}` }))).toBeNull();
    expect(guard.checkToken(request({ authorization: `Bearer ${TOKEN}` }))).toBeNull();
    const missing = guard.checkToken(request({}));
    expect(missing).toMatchObject({ status: 401 });
    expect(missing!.error).toContain('?token=');
    expect(guard.checkToken(request({ authorization: `Bearer ${TOKEN}x` }))).toMatchObject({ status: 401 });
    expect(guard.checkToken(request({ cookie: `${TOKEN_COOKIE}=%E0%A4%A` }))).toMatchObject({ status: 401 });
    expect(guard.matches(TOKEN)).toBe(true);
    expect(guard.matches('')).toBe(false);
    expect(new RequestGuard({ listenHost: '127.0.0.1', allowedHosts: [], token: null }).checkToken(request({}))).toBeNull();
  });
});
