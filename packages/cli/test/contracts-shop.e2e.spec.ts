/**
 * The example shop's contracts through the real `protean-ts` command: its catalog (text, JSON,
 * Markdown), its JSON Schemas (compiled by ajv's 2020-12 validator and checked against messages
 * the shop itself writes), its AsyncAPI 3 document for an external broker (parsed by
 * @asyncapi/parser), and `schema check` against the export (no changes) and against a git ref
 * of a project whose event changed (exit 1).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Parser } from '@asyncapi/parser';
import { runCli } from './run-cli.js';
import { tempProject } from './cli-fixture.js';
import { OrderCancelled, OrderConfirmed, OrderPlaced } from '../../../examples/shop/src/domain.js';

const SHOP = fileURLToPath(new URL('../../../examples/shop', import.meta.url));
const SHOP_DOMAIN = path.join(SHOP, 'src/domain.ts');
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-contracts-')));
const out = path.join(work, 'export');
const config = path.join(work, 'domain.toml');

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  // The shop's own configuration has no external broker; this one adds "partners" (never connected).
  fs.writeFileSync(
    config,
    [
      '[databases.default]',
      'provider = "memory"',
      '[brokers.default]',
      'provider = "inline"',
      '[brokers.partners]',
      'provider = "redis"',
      'uri = "redis://shop:secret@127.0.0.1:6379"',
      '[outbox]',
      'external_brokers = ["partners"]',
    ].join('\n'),
  );
});

const shopCli = (args: string[]) => runCli(['--domain', SHOP_DOMAIN, '--config', config, ...args], { cwd: SHOP });

describe('protean-ts catalog on the shop', () => {
  it('lists every event and command with its contract and its consumers', async () => {
    const { code, stdout, stderr } = await shopCli(['catalog', '--json']);
    expect(code, stderr).toBe(0);
    const catalog = JSON.parse(stdout);
    expect(catalog.domain).toBe('Shop');
    const placed = catalog.events.find((e: { type: string }) => e.type === 'Shop.OrderPlaced.v1');
    expect(placed).toMatchObject({ published: false, aggregate: 'Order', streamCategory: 'shop::order', version: 1 });
    expect(placed.fields.map((f: { name: string }) => f.name)).toEqual(['orderId', 'customerId', 'items', 'total']);
    expect(placed.fields[2]).toMatchObject({ kind: 'list', of: 'valueObject', target: 'LineItem', required: true });
    expect(placed.consumers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'processManager', name: 'OrderFulfilment' }),
        expect.objectContaining({ kind: 'projector', name: 'OrderTimelineProjector', projection: 'OrderTimeline' }),
      ]),
    );
    expect(catalog.events.find((e: { name: string }) => e.name === 'OrderConfirmed').published).toBe(true);
    expect(catalog.events.find((e: { name: string }) => e.name === 'StockReceived')).toMatchObject({ version: 2, upcasters: [{ from: 1, to: 2 }] });
    const placeOrder = catalog.commands.find((c: { name: string }) => c.name === 'PlaceOrder');
    expect(placeOrder.consumers).toEqual([expect.objectContaining({ kind: 'commandHandler' })]);
  });

  it('prints text and a Markdown page', async () => {
    const text = await shopCli(['catalog']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Shop\.OrderConfirmed\.v1 \(published; aggregate Order, stream shop::order\)/);
    expect(text.stdout).toContain('upcasters: v1→v2');
    const markdown = await shopCli(['catalog', '--markdown']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('### OrderConfirmed (v1)');
    expect(markdown.stdout).toContain('| `amount.currency` | string |');
  });
});

describe('protean-ts schema export on the shop', () => {
  beforeAll(async () => {
    const { code, stderr } = await shopCli(['schema', 'export', '--out', out]);
    expect(code, stderr).toBe(0);
  });

  it("writes a JSON Schema 2020-12 per message that ajv compiles and the shop's own messages satisfy", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const files = fs.readdirSync(path.join(out, 'schemas'));
    const contracts = JSON.parse(fs.readFileSync(path.join(out, 'contracts.json'), 'utf8'));
    expect(files.sort()).toEqual(contracts.messages.map((m: { type: string }) => `${m.type}.schema.json`).sort());
    const validators = new Map(files.map((file) => [file, ajv.compile(JSON.parse(fs.readFileSync(path.join(out, 'schemas', file), 'utf8')))]));
    const money = { amount: 59.8, currency: 'EUR' };
    const samples: [string, unknown][] = [
      [
        'Shop.OrderPlaced.v1',
        OrderPlaced.create({
          orderId: 'o-1',
          customerId: 'c-1',
          items: [{ sku: 'TEA-1', quantity: 2, unitPrice: { amount: 29.9, currency: 'EUR' } }],
          total: money,
        }).toPlain(),
      ],
      ['Shop.OrderConfirmed.v1', OrderConfirmed.create({ orderId: 'o-1', customerId: 'c-1', amount: money, paymentMethod: 'card' }).toPlain()],
      ['Shop.OrderCancelled.v1', OrderCancelled.create({ orderId: 'o-1', reason: 'payment declined' }).toPlain()],
    ];
    for (const [type, plain] of samples) {
      const validate = validators.get(`${type}.schema.json`)!;
      expect({ type, ok: validate(plain), errors: validate.errors }).toEqual({ type, ok: true, errors: null });
    }
    const confirmed = validators.get('Shop.OrderConfirmed.v1.schema.json')!;
    expect(confirmed({ orderId: 'o-1', customerId: 'c-1', amount: { amount: 1, currency: 'euro' }, paymentMethod: 'card' })).toBe(false);
    expect(confirmed({ orderId: 'o-1', amount: money, paymentMethod: 'card' })).toBe(false);
  });

  it('writes an AsyncAPI 3 document for the external broker that @asyncapi/parser accepts', async () => {
    const text = fs.readFileSync(path.join(out, 'asyncapi', 'partners.asyncapi.json'), 'utf8');
    expect(text).not.toContain('secret');
    const { document, diagnostics } = await new Parser().parse(text);
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
    expect(document).toBeDefined();
    expect(document!.version()).toBe('3.0.0');
    const channel = document!
      .channels()
      .all()
      .find((c) => c.address() === 'shop::order');
    expect(channel).toBeDefined();
    expect(
      channel!
        .messages()
        .all()
        .map((m) => m.name())
        .sort(),
    ).toEqual(['Shop.OrderCancelled.v1', 'Shop.OrderConfirmed.v1']);
    expect(
      document!
        .servers()
        .all()
        .map((s) => [s.host(), s.protocol()]),
    ).toEqual([['127.0.0.1:6379', 'redis']]);
    const payload = document!
      .messages()
      .all()
      .find((m) => m.name() === 'Shop.OrderConfirmed.v1')!
      .payload()!;
    expect(Object.keys(payload.properties() ?? {})).toEqual(['data', 'metadata']);
    expect(Object.keys(payload.properties()!.data!.properties() ?? {})).toEqual(['orderId', 'customerId', 'amount', 'paymentMethod']);
  });

  it("prints one broker's AsyncAPI document, and refuses an unknown broker", async () => {
    const one = await shopCli(['schema', 'export', '--asyncapi', 'partners']);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).asyncapi).toBe('3.0.0');
    const unknown = await shopCli(['schema', 'export', '--asyncapi', 'nowhere']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('documents: partners');
  });

  it('schema check against the export finds no changes (exit 0)', async () => {
    const { code, stdout, stderr } = await shopCli(['schema', 'check', '--against', out]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('No contract changes');
  });
});

describe('protean-ts schema check against a git ref', () => {
  const domainV1 = `
import { Domain, BaseAggregate, BaseEvent, field } from '@protean-ts/core';
export const domain = new Domain('Bank', { root: import.meta.url });
@domain.aggregate()
export class Account extends BaseAggregate {
  @field.string() owner!: string;
}
@domain.event({ partOf: Account, published: true })
export class Deposited extends BaseEvent {
  @field.decimal({ required: true }) amount!: number;
}
`;

  it('exports the domain at the ref in a child process and fails on the breaking change (exit 1)', async () => {
    const project = tempProject({ 'src/domain.ts': domainV1, '.gitignore': 'node_modules\n' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'pipe' });
    git('init', '-q');
    git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'add', '-A');
    git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'v1');
    fs.writeFileSync(path.join(project, 'src/domain.ts'), domainV1.replace('amount!: number', 'total!: number'));

    const { code, stdout, stderr } = await runCli(['--domain', 'src/domain.ts', 'schema', 'check', '--against', 'HEAD', '--json'], { cwd: project });
    expect(code, stderr).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.against).toBe('git ref HEAD');
    expect(report.changes).toEqual([
      expect.objectContaining({ message: 'Bank.Deposited', change: 'field-renamed', field: 'amount', verdict: 'breaking', severity: 'error' }),
    ]);
    expect(stderr).toContain('1 error(s) against git ref HEAD');
    expect(git('status', '--porcelain').toString()).toBe(' M src/domain.ts\n');

    const missing = await runCli(['--domain', 'src/domain.ts', 'schema', 'check', '--against', 'no-such-ref'], { cwd: project });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file, directory or git ref');
  });
});
