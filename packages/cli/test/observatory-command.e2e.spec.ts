/**
 * `protean-ts observatory` as a real process on the example shop's embedded default (memory
 * database, in-process broker): option checks, the page and its vendored modules, the JSON API,
 * the event stream, and the guards of the actions. Needs no service; the browser test against
 * PostgreSQL and Redis is examples/shop/test/observatory.e2e.spec.ts.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { runCli, startCli } from './run-cli.js';

const SHOP = fileURLToPath(new URL('../../../examples/shop/', import.meta.url));
const ENV = { PROTEAN_ENV: '' };

interface RunningObservatory {
  child: ChildProcess;
  /** What `address` matched in its output: the printed address. */
  match: RegExpExecArray;
  output(): string;
  stop(): Promise<void>;
}

/** `protean-ts observatory <args>` on the embedded shop, once its output matches `address`. */
async function startObservatory(args: string[], address: RegExp): Promise<RunningObservatory> {
  const child = startCli(['observatory', ...args], { cwd: SHOP, env: ENV });
  child.stdin!.end();
  let output = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed:\n${output}`)), 60_000);
    const onData = (chunk: string) => {
      output += chunk;
      const found = address.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.stderr!.setEncoding('utf8').on('data', onData);
    child.once('exit', () => reject(new Error(`exited before listening:\n${output}`)));
  });
  return {
    child,
    match,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('protean-ts observatory options', () => {
  it.each([
    [['--port', '70000'], '--port must be a whole number from 0 to 65535'],
    [['--refresh', '0.1'], '--refresh must be a number of seconds from 0.5 to 60'],
    [['--host', '0.0.0.0'], 'refusing to listen on 0.0.0.0: its pages show message payloads'],
  ])('%j is a usage error', async (args, message) => {
    const result = await runCli(['observatory', ...args], { cwd: SHOP, env: ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('protean-ts observatory serving the embedded shop', () => {
  let observatory: RunningObservatory;
  let url = '';

  beforeAll(async () => {
    observatory = await startObservatory(['--port', '0', '--refresh', '0.5'], /observatory: (http:\/\/\S+)/);
    url = observatory.match[1]!;
  }, 90_000);

  afterAll(() => observatory?.stop());

  it('listens on 127.0.0.1 and serves the page with Preact and htm from the installed packages', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(url);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('"preact": "/vendor/preact.mjs"');
    for (const path of ['vendor/preact.mjs', 'vendor/preact-hooks.mjs', 'vendor/htm.mjs', 'ui/app.js', 'ui/views/journey.js', 'ui/style.css']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(200);
    }
    expect((await fetch(`${url}ui/../package.json`)).status).toBe(404);
  });

  it('answers the map from the domain registry', async () => {
    const map = (await (await fetch(`${url}api/map`)).json()) as { name: string; subscriptions: { group: string; stream: string; handles: string[] }[] };
    expect(map.name).toBe('Shop');
    expect(map.subscriptions.find((s) => s.group === 'OrderCommands')).toMatchObject({ stream: 'shop::order:command' });
    expect(map.subscriptions.find((s) => s.group === 'OrderCommands')!.handles).toContain('Shop.PlaceOrder.v1');
  });

  it('pushes snapshots over server-sent events, the memory database read like any other', async () => {
    const response = await fetch(`${url}events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: snapshot\ndata: ')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const data = JSON.parse(text.split('event: snapshot\ndata: ')[1]!.split('\n')[0]!) as {
      outbox: { report: { database: string } }[];
      flow: { streams: unknown[]; subscriptions: unknown[]; unread: string[] };
    };
    expect(data.outbox[0]!.report.database).toBe('default');
    // Read through the store ports: nothing is left out for being in memory.
    expect(data.flow).toMatchObject({ streams: [], subscriptions: [], unread: [] });
  });

  it('guards the actions: JSON only, loopback host names only, clear errors', async () => {
    const form = await fetch(`${url}api/dead-letters/purge`, {
      method: 'POST',
      body: 'subscription=OrderCommands',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    // fetch sets Host itself; a page reaching 127.0.0.1 through another name sends that name.
    const rebinding = await new Promise<number>((resolve, reject) => {
      const request = http.get(`${url}api/map`, { headers: { Host: 'attacker.example' } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.once('error', reject);
    });
    expect(rebinding).toBe(421);
    const unknown = await fetch(`${url}api/dead-letters/replay`, {
      method: 'POST',
      body: JSON.stringify({ subscription: 'Nope' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toContain('no stream subscription "Nope"');
    // A process manager reads several streams under one name: the stream says which letters.
    const second = await fetch(`${url}api/dead-letters?subscription=OrderFulfilment&stream=${encodeURIComponent('shop::payment')}`);
    expect(((await second.json()) as { stream: string }).stream).toBe('shop::payment');
    const wrongStream = await fetch(`${url}api/dead-letters/purge`, {
      method: 'POST',
      body: JSON.stringify({ subscription: 'OrderFulfilment', stream: 'shop::order:command' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(wrongStream.status).toBe(400);
    expect(((await wrongStream.json()) as { error: string }).error).toContain('subscription "OrderFulfilment" does not read stream "shop::order:command"');
    const retry = await fetch(`${url}api/outbox/retry`, {
      method: 'POST',
      body: JSON.stringify({ database: 'elsewhere', ids: ['1'] }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(((await retry.json()) as { error: string }).error).toContain('no managed database "elsewhere" (managed databases: default)');
  });

  it('never renders inside another page, and sends no referrer and sniffs no type', async () => {
    for (const path of ['', 'api/map', 'ui/app.js', 'nothing-here']) {
      const response = await fetch(`${url}${path}`);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('refuses actions another site sends through a browser (Origin, Sec-Fetch-Site)', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${url}api/dead-letters/purge`, {
        method: 'POST',
        body: JSON.stringify({ subscription: 'Receipts' }),
        headers: { 'Content-Type': 'application/json', ...headers },
      });
    const foreign = await post({ Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toContain(
      "actions are taken from the observatory's own page only, not from http://evil.example",
    );
    expect((await post({ 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post({ 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
  });

  it('answers bad input with a 400 naming it, never a 500 with a database error', async () => {
    const post = (path: string, body: string) => fetch(`${url}api/${path}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    const expectRefused = async (response: Response, message: string) => {
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain(message);
    };
    await expectRefused(await post('dead-letters/purge', 'null'), 'the request body must be a JSON object');
    await expectRefused(await post('dead-letters/replay', '[1]'), 'the request body must be a JSON object');
    await expectRefused(
      await post('outbox/retry', JSON.stringify({ database: 'default', ids: ['1; DROP TABLE x', '2'] })),
      '"ids" must be outbox row ids (whole numbers)',
    );
    await expectRefused(await post('outbox/retry', JSON.stringify({ database: 'default', ids: [''] })), '"ids" is required');
    await expectRefused(await fetch(`${url}api/journey?correlation=a%00b`), '"correlation" must not contain NUL characters');
    await expectRefused(await fetch(`${url}api/dead-letters?subscription=Receipts%00`), '"subscription" must not contain NUL characters');
    await expectRefused(await fetch(`${url}api/journey?correlation=${'x'.repeat(1_001)}`), '"correlation" is over 1000 characters');
  });
});

describe('protean-ts observatory beyond loopback', () => {
  let observatory: RunningObservatory;
  let base = '';
  let token = '';

  beforeAll(async () => {
    const args = ['--host', '0.0.0.0', '--allow-remote', '--allowed-host', 'dash.example', '--port', '0'];
    observatory = await startObservatory(args, /observatory: (http:\/\/\S+\/)\?token=(\S+)/);
    [base, token] = [observatory.match[1]!, observatory.match[2]!];
  }, 90_000);

  afterAll(() => observatory?.stop());

  /** A GET through node:http, which (unlike fetch) sends the Host header it is given. */
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const request = http.get(`${base}${path}`, { headers }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.once('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      });
      request.once('error', reject);
    });

  it('prints the URL with a fresh access token and a WARN saying what the address exposes', async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await eventually(async () => observatory.output().includes('observatory listens on 0.0.0.0'), 20_000, 'the public-bind WARN');
    expect(observatory.output()).toContain('observatory listens on 0.0.0.0 (every interface): anyone who reaches that address and has the access token');
  });

  it('needs the token on the API and the event stream; the printed URL sets it as an HttpOnly, SameSite=Strict cookie', async () => {
    const without = await get('api/map');
    expect(without.status).toBe(401);
    expect(without.body).toContain('this observatory needs its access token');
    expect((await get('events')).status).toBe(401);
    expect((await get(`?token=${token}x`)).status).toBe(401);
    const opened = await get(`?token=${token}`);
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe('/');
    const cookie = opened.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
    expect((await get('api/map', { Cookie: cookie.split(';')[0]! })).status).toBe(200);
    expect((await get('api/map', { Authorization: `Bearer ${token}` })).status).toBe(200);
    // The page's own files carry no data: they load, and ask for the token through the API.
    expect((await get('')).status).toBe(200);
  });

  it('answers its own addresses and --allowed-host, not a name another site points at it', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    expect((await get('api/map', { ...auth, Host: 'dash.example:9000' })).status).toBe(200);
    const rebinding = await get('api/map', { ...auth, Host: 'evil.example:9000' });
    expect(rebinding.status).toBe(421);
    expect(rebinding.body).toContain('--allowed-host evil.example');
    await eventually(async () => observatory.output().includes('observatory refused a request'), 20_000, 'the refusal WARN');
  });
});
