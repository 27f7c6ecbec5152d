/**
 * `protean-ts observatory` in a real browser (Debian's Chromium through playwright-core) against
 * the shop in production shape: `protean-ts server` on PostgreSQL and Redis, orders sent through
 * the outbox. Each page renders and its numbers match the database and the broker; retrying an
 * abandoned outbox row, replaying a dead letter and purging one from the page do what they say.
 * Screenshots of every page land in test-artifacts/observatory/ at the repository root.
 */
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import type { Broker, OutboxRow } from '@protean-ts/core';
import { planSubscriptions, type PlannedSubscription } from '@protean-ts/server';
import { domain } from '../src/domain.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { startObservatoryProcess, type ObservatoryProcess } from './support/observatory-process.js';
import { planOrders, plentifulSkus, seedCatalogue, sendOrders } from './support/order-load.js';
import { createProductionShop, type ProductionShop } from './support/production-shop.js';
import { waitUntilSettled } from './support/shop-effects.js';
import { startShopServer, type ShopServer } from './support/shop-server.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/observatory/', import.meta.url));
const ORDERS = 12;
const STATUSES = ['pending', 'processing', 'published', 'failed', 'abandoned', 'scheduled'] as const;

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await read();
  }
  return last;
}

const ready = (await servicesUp(POSTGRES, REDIS)) && chromiumAvailable();

describe.skipIf(!ready)('protean-ts observatory in a browser', () => {
  let shop: ProductionShop;
  let server: ShopServer;
  let observatory: ObservatoryProcess;
  let browser: Browser;
  let page: Page;
  let broker: Broker;
  /** The event handler the dead letters belong to, and an event of its stream it handles. */
  let victim: PlannedSubscription;
  let victimEvent: OutboxRow;

  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
  const open = async (hash: string) => {
    await page.goto(`${observatory.url}#${hash}`);
    await page.locator(`[data-testid="view-${hash.split('?')[0]}"]`).waitFor();
  };
  const text = (selector: string) => page.locator(selector).first().innerText();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    shop = await createProductionShop('redis');
    const skus = plentifulSkus(4);
    await seedCatalogue(skus);
    server = await startShopServer(1, shop.env);
    await sendOrders(planOrders(ORDERS, { skus, maxLines: 2, mix: false }), { concurrency: 4 });
    await waitUntilSettled(shop.db, ORDERS, 120_000);
    await eventually(
      () => shop.db.query<{ n: string }>(`SELECT count(*) AS n FROM protean_outbox WHERE status <> 'published'`),
      (r) => r[0]!.n === '0',
      'outbox drained',
    );

    broker = domain.runtime.infrastructure.broker('default');
    const provider = domain.providers.get('default')!;
    const published = await provider.outbox.list({ status: 'published', limit: 1000 });
    const handlers = planSubscriptions(domain).filter((p) => p.source === 'stream' && p.role === 'eventHandler');
    for (const candidate of handlers) {
      const handles = domain.registry.handlerMethodsOf(candidate.cls);
      const row = published.find((r) => r.streamName === candidate.stream && handles.has(r.messageType));
      // Alone on its stream: purge (which removes a stream's letters) is allowed for it.
      if (
        row &&
        handlers.filter((h) => h.stream === candidate.stream).length === 1 &&
        planSubscriptions(domain).filter((p) => p.stream === candidate.stream).length === 1
      ) {
        victim = candidate;
        victimEvent = row;
        break;
      }
    }
    expect(victim, 'an event handler alone on its stream, with a published event it handles').toBeDefined();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    observatory = await startObservatoryProcess(shop.env, ['--refresh', '0.5']);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await observatory?.stop();
    if (server) await server.stop('SIGTERM');
    await shop?.dispose();
  }, 60_000);

  it('refuses a non-loopback address unless told, saying why', async () => {
    const { runCli } = await import('@protean-ts/cli/testing');
    const refused = await runCli(['observatory', '--host', '0.0.0.0'], { cwd: fileURLToPath(new URL('..', import.meta.url)), env: shop.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refusing to listen on 0.0.0.0');
    expect(refused.stderr).toContain('every request then needs an access token');
    expect(refused.stderr).toContain('--allow-remote');
    expect(observatory.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('shows the domain map: every subscription with the stream it reads', async () => {
    await open('map');
    expect(await text('[data-testid="domain-name"]')).toBe(domain.name);
    const plan = planSubscriptions(domain);
    await expect.poll(() => page.locator('[data-testid="map-subscriptions"] tbody tr').count()).toBe(plan.length);
    const row = page.locator(`[data-testid="map-subscriptions"] tr[data-subscription="${victim.group}"]`).first();
    expect(await row.innerText()).toContain(victimEvent.messageType);
    for (const kind of ['aggregate', 'event', 'command', 'eventHandler', 'processManager', 'projection']) {
      expect(await page.locator(`.card[data-kind="${kind}"]`).count(), kind).toBe(1);
    }
    await shot('1-domain-map');
  });

  it('shows the message catalog beside the map: fields, published events, consumers', async () => {
    await open('messages');
    const events = domain.recordsOf('event').length;
    await expect.poll(() => page.locator('[data-testid="catalog-events"] .card').count()).toBe(events);
    expect(await page.locator('[data-testid="catalog-commands"] .card').count()).toBe(domain.recordsOf('command').length);
    const confirmed = page.locator('.card[data-message="Shop.OrderConfirmed.v1"]');
    expect(await confirmed.locator('[data-testid="published"]').count()).toBe(1);
    expect(await confirmed.innerText()).toContain('amount.currency');
    expect(await page.locator('.card[data-message="Shop.OrderPlaced.v1"]').innerText()).toContain('OrderFulfilment (processManager)');
    await shot('1b-message-catalog');
  });

  it('shows the message flow, with totals per subscription as the inbox holds them', async () => {
    // A few more orders, so the rates have something to show.
    await sendOrders(planOrders(6, { skus: plentifulSkus(4), maxLines: 1, mix: false }), { concurrency: 2 });
    await open('flow');
    await page.locator('[data-testid="flow-streams"] tr[data-stream]').first().waitFor({ timeout: 30_000 });
    await waitUntilSettled(shop.db, ORDERS + 6, 120_000);
    const totals = await shop.db.query<{ subscription: string; total: string }>(
      `SELECT subscription, sum(total)::text AS total FROM (
         SELECT subscription, sum(last_sequence) AS total FROM protean_inbox_checkpoints GROUP BY subscription
         UNION ALL SELECT subscription, count(*) FROM protean_inbox_messages GROUP BY subscription) t GROUP BY subscription`,
    );
    expect(totals.length).toBeGreaterThan(0);
    for (const { subscription, total } of totals) {
      const cell = page.locator(`[data-testid="flow-subscriptions"] tr[data-subscription="${subscription}"] td:nth-child(3)`);
      await expect.poll(() => cell.innerText(), { timeout: 15_000 }).toBe(total);
    }
    expect(await text('[data-testid="published-rate"]')).toMatch(/\/s$/);
    await shot('2-message-flow');
  });

  it('shows the outbox counts of the database and retries an abandoned row', async () => {
    // A row that used its attempts, as the processor leaves it (written here behind its back).
    const [abandoned] = await shop.db.query<{ id: string }>(
      `UPDATE protean_outbox SET status = 'abandoned', retry_count = max_retries, last_error = 'broker said no (set by the observatory test)'
       WHERE id = (SELECT max(id) FROM protean_outbox WHERE status = 'published') RETURNING id::text AS id`,
    );
    await open('outbox');
    await page.locator(`[data-testid="outbox-abandoned-default"] tr[data-row="${abandoned!.id}"]`).waitFor({ timeout: 15_000 });
    const counts = Object.fromEntries(
      (await shop.db.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM protean_outbox GROUP BY status`)).map((r) => [
        r.status,
        r.n,
      ]),
    );
    for (const status of STATUSES) {
      await expect.poll(() => text(`[data-testid="outbox-default-${status}"]`), { timeout: 10_000 }).toBe(counts[status] ?? '0');
    }
    expect(await text(`[data-testid="outbox-abandoned-default"] tr[data-row="${abandoned!.id}"]`)).toContain('broker said no');
    await shot('3-outbox');

    await page.locator(`[data-testid="outbox-abandoned-default"] tr[data-row="${abandoned!.id}"] button`).click();
    expect(await page.locator('[data-testid="action-result"]').innerText()).toContain('1 row(s) of default back to pending');
    // The running server publishes it again.
    await eventually(
      () => shop.db.query<{ status: string }>(`SELECT status FROM protean_outbox WHERE id = $1`, [abandoned!.id]),
      (r) => r[0]?.status === 'published',
      'retried row published',
    );
    await expect.poll(() => text('[data-testid="outbox-default-abandoned"]'), { timeout: 10_000 }).toBe('0');
  });

  it('shows subscriptions as the broker sees them, and replays and purges dead letters from the page', async () => {
    const message = { id: '0-1', stream: victim.stream, envelope: victimEvent.envelope, deliveryCount: 3 };
    await broker.deadLetter(victim.stream, victim.group, message, 'Error: marked input fails permanently (observatory test)');
    await open('subscriptions');
    const row = page.locator(`[data-testid="subscriptions"] tr[data-subscription="${victim.group}"]`).first();
    await expect.poll(() => row.locator('[data-col="dead-letters"]').innerText(), { timeout: 15_000 }).toBe('1');
    const status = await broker.groupStatus(victim.stream, victim.group);
    expect(await row.locator('[data-col="pending"]').innerText()).toBe(String(status.pending));
    expect(await row.locator('[data-col="lag"]').innerText()).toBe(status.lag === null ? '—' : String(status.lag));
    // Consumers as Redis itself counts them in the group.
    const groups = (await shop.broker.redis!.client.call('XINFO', 'GROUPS', `${shop.broker.redis!.prefix}${victim.stream}`)) as unknown[][];
    const info = groups.map((fields) => Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [String(fields[2 * i]), fields[2 * i + 1]])));
    expect(await row.locator('[data-col="consumers"]').innerText()).toBe(String(info.find((g) => g.name === victim.group)!.consumers));

    await page.locator(`[data-testid="inspect-${victim.group}"]`).click();
    const letters = page.locator('[data-testid="dead-letters"] .letter');
    await letters.first().waitFor();
    expect(await letters.count()).toBe(1);
    expect(await letters.first().innerText()).toContain('marked input fails permanently');
    expect(await letters.first().innerText()).toContain(victimEvent.messageType);
    await shot('4-subscriptions-dead-letters');

    const streamKey = `${shop.broker.redis!.prefix}${victim.stream}`;
    const lengthBefore = await shop.broker.redis!.client.xlen(streamKey);
    await page.locator('[data-testid="replay-all"]').click();
    await expect.poll(() => page.locator('[data-testid="action-result"]').innerText()).toContain('1 dead letter(s)');
    expect(await broker.listDeadLetters(victim.stream)).toHaveLength(0);
    expect(await shop.broker.redis!.client.xlen(streamKey)).toBe(lengthBefore + 1);
    await expect.poll(() => row.locator('[data-col="dead-letters"]').innerText(), { timeout: 15_000 }).toBe('0');
    await shot('5-subscriptions-after-replay');

    // Purge asks first, then empties the stream's dead letters.
    await broker.deadLetter(victim.stream, victim.group, { ...message, id: '0-2' }, 'Error: marked again');
    // The open panel follows the live count: the new letter appears without a click.
    await page.locator('[data-testid="dead-letters"] .letter').first().waitFor({ timeout: 15_000 });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('[data-testid="purge"]').click();
    await expect.poll(() => page.locator('[data-testid="action-result"]').innerText()).toContain('1 dead letter(s) deleted');
    expect(await broker.listDeadLetters(victim.stream)).toHaveLength(0);
  });

  it("follows a message's journey by correlation id: every outbox row, and the handlers that handled it", async () => {
    const [busiest] = await shop.db.query<{ correlation_id: string; n: string }>(
      `SELECT correlation_id, count(*)::text AS n FROM protean_outbox WHERE correlation_id IS NOT NULL GROUP BY correlation_id ORDER BY count(*) DESC, correlation_id LIMIT 1`,
    );
    await open(`journey?correlation=${encodeURIComponent(busiest!.correlation_id)}`);
    const steps = page.locator('[data-testid="journey"] > li');
    await steps.first().waitFor({ timeout: 15_000 });
    expect(String(await steps.count())).toBe(busiest!.n);
    const rows = await shop.db.query<{ message_id: string }>(`SELECT message_id FROM protean_outbox WHERE correlation_id = $1`, [busiest!.correlation_id]);
    for (const { message_id } of rows) expect(await page.locator(`[data-testid="journey"] > li[data-message="${message_id}"]`).count()).toBe(1);
    // The flow has settled: every handling shown is done.
    expect(await page.locator('.handling.handled').count()).toBeGreaterThan(0);
    expect(await page.locator('.handling.waiting').count()).toBe(0);
    await shot('6-journey');

    await open('journey?correlation=no-such-correlation');
    await page.locator('[data-testid="journey-empty"]').waitFor();
  });

  it('another site cannot drive it: not through a name rebound to it, not in a frame, not by posting across sites', async () => {
    const letter = { id: '0-9', stream: victim.stream, envelope: victimEvent.envelope, deliveryCount: 1 };
    await broker.deadLetter(victim.stream, victim.group, letter, 'Error: kept through the cross-site test');
    const port = new URL(observatory.url).port;
    // Chromium resolves every *.localhost name to the loopback interface: a name that is not the
    // observatory's and still reaches it, as an attacker's DNS name rebound to 127.0.0.1 does.
    const rebound = await page.goto(`http://rebound.localhost:${port}/`);
    expect(rebound!.status()).toBe(421);
    expect(await page.content()).toContain('the observatory answers to the addresses it listens on');

    // A page of another site that frames the observatory and posts to its actions.
    const evil = http.createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>evil</title><iframe id="victim" src="${observatory.url}"></iframe>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const evilUrl = `http://evil.localhost:${(evil.address() as AddressInfo).port}/`;
      const consoleLines: string[] = [];
      page.on('console', (line) => consoleLines.push(line.text()));
      await page.goto(evilUrl);
      await expect.poll(() => consoleLines.join('\n'), { timeout: 15_000 }).toContain("frame-ancestors 'none'");
      const framed = page.frames().find((frame) => frame !== page.mainFrame());
      expect(framed ? await framed.locator('[data-testid^="view-"]').count() : 0).toBe(0);

      const outcomes = await page.evaluate(async (target) => {
        const purge = `${target}api/dead-letters/purge`;
        // A simple request reaches the server, which refuses it by its Origin (and the browser hides
        // the answer: Cross-Origin-Resource-Policy); a JSON one needs a preflight the observatory never grants.
        await fetch(purge, { method: 'POST', mode: 'no-cors', body: '{"subscription":"x"}' }).catch(() => undefined);
        const json = await fetch(purge, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"subscription":"x"}' }).then(
          (response) => `answered ${response.status}`,
          () => 'blocked by the browser',
        );
        return json;
      }, observatory.url);
      expect(outcomes).toBe('blocked by the browser');
      await expect
        .poll(() => observatory.output(), { timeout: 15_000 })
        .toMatch(/observatory refused a request: actions are taken from the observatory's own page only.*"origin":"http:\/\/evil\.localhost:/);
      expect(await broker.listDeadLetters(victim.stream)).toHaveLength(1);
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
  });
});
