import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TS_DOMAIN, tempProject } from './cli-fixture.js';
import { runCli } from './run-cli.js';

const ORDER_LINE = 'aggregate Order → default.order: id, customer, quantity';

describe('loading the domain (--domain, module key)', () => {
  it('loads a .ts domain that has no tsconfig of its own, with legacy decorators (fallback tsconfig)', async () => {
    const cwd = tempProject({ 'domain.ts': TS_DOMAIN });
    const { code, stdout, stderr } = await runCli(['--domain', 'domain.ts', 'info'], { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Domain Shop (${path.join(cwd, 'domain.ts')})`);
    expect(stdout).toContain(ORDER_LINE);
  });

  it('loads a .ts domain with its own tsconfig, honouring it (paths alias) and forcing the decorator settings', async () => {
    const cwd = tempProject({
      // No experimentalDecorators here: the CLI adds the settings protean-ts needs.
      'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', baseUrl: '.', paths: { '@names/*': ['./lib/*'] } } }),
      'lib/names.ts': "export const DOMAIN_NAME = 'AliasedShop';\n",
      'src/domain.ts': TS_DOMAIN.replace('import { Domain', "import { DOMAIN_NAME } from '@names/names.js';\nimport { Domain").replace(
        "new Domain('Shop'",
        'new Domain(DOMAIN_NAME',
      ),
    });
    const { code, stdout, stderr } = await runCli(['--domain', 'src/domain.ts', 'info'], { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Domain AliasedShop');
    expect(stdout).toContain(ORDER_LINE);
  });

  it('loads a .js domain', async () => {
    const cwd = tempProject({
      'domain.js': `
import { Domain, BaseAggregate, field } from '@protean-ts/core';
export const domain = new Domain('JsShop', { root: import.meta.url });
export class Order extends BaseAggregate {}
field.string({ required: true })(Order.prototype, 'customer');
field.integer()(Order.prototype, 'quantity');
domain.register(Order);
`,
    });
    const { code, stdout, stderr } = await runCli(['--domain', 'domain.js', 'info', '--json'], { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      name: 'JsShop',
      aggregates: [{ name: 'Order', fields: ['id', 'customer', 'quantity'] }],
      problems: [],
    });
  });

  it('finds the domain through the `module` key of domain.toml, relative to the file', async () => {
    const cwd = tempProject({ 'domain.toml': 'module = "src/app/domain.ts"\n', 'src/app/domain.ts': TS_DOMAIN });
    const fromRoot = await runCli(['info'], { cwd });
    expect(fromRoot.stderr).toBe('');
    expect(fromRoot.stdout).toContain(ORDER_LINE);
    // From a subfolder, discovery walks up to the same domain.toml.
    const fromSub = await runCli(['info'], { cwd: path.join(cwd, 'src') });
    expect(fromSub.code).toBe(0);
    expect(fromSub.stdout).toContain(`Domain Shop (${path.join(cwd, 'src/app/domain.ts')})`);
  });

  it('reading the module key does not need variables used elsewhere in domain.toml', async () => {
    const cwd = tempProject({
      'domain.toml': 'module = "${SHOP_MODULE|domain.ts}"\n[databases.default]\nprovider = "postgresql"\ndatabase_uri = "${DATABASE_URL}"\n',
      'domain.ts': TS_DOMAIN,
    });
    const { code, stdout, stderr } = await runCli(['info'], { cwd, env: { DATABASE_URL: undefined } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(ORDER_LINE);
  });

  it('--domain wins over the module key', async () => {
    const cwd = tempProject({ 'domain.toml': 'module = "missing.ts"\n', 'domain.ts': TS_DOMAIN });
    const { code, stdout } = await runCli(['info', '--domain', 'domain.ts'], { cwd });
    expect(code).toBe(0);
    expect(stdout).toContain(ORDER_LINE);
  });

  it('accepts a default export, or the only exported Domain under another name', async () => {
    const asDefault = tempProject({ 'd.ts': TS_DOMAIN.replace('export const domain =', 'const domain =') + '\nexport default domain;\n' });
    expect((await runCli(['--domain', 'd.ts', 'info'], { cwd: asDefault })).stdout).toContain(ORDER_LINE);
    const renamed = tempProject({ 'd.ts': TS_DOMAIN.replaceAll('domain', 'shop') });
    expect((await runCli(['--domain', 'd.ts', 'info'], { cwd: renamed })).stdout).toContain(ORDER_LINE);
  });

  it('a module that exports no Domain fails naming the file and what it exports', async () => {
    const cwd = tempProject({ 'domain.ts': 'export const answer = 42;\nexport function helper() {}\n' });
    const { code, stderr } = await runCli(['--domain', 'domain.ts', 'info'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(`protean-ts: error: domain module ${path.join(cwd, 'domain.ts')} exports no Domain instance (exports: answer, helper)`);
    expect(stderr).toContain('export const domain = new Domain(');
  });

  it('two exported Domains without a `domain` export is ambiguous', async () => {
    const cwd = tempProject({
      'two.ts': "import { Domain } from '@protean-ts/core';\nexport const a = new Domain('A');\nexport const b = new Domain('B');\n",
    });
    const { code, stderr } = await runCli(['--domain', 'two.ts', 'info'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain('exports several Domain instances (a, b)');
  });

  it('a missing module fails naming the file and where it came from', async () => {
    const cwd = tempProject({ 'domain.toml': 'module = "src/nope.ts"\n' });
    const viaOption = await runCli(['--domain', 'nope.ts', 'info'], { cwd });
    expect(viaOption.code).toBe(1);
    expect(viaOption.stderr).toContain(`domain module ${path.join(cwd, 'nope.ts')} (given with --domain) does not exist`);
    const viaKey = await runCli(['info'], { cwd });
    expect(viaKey.code).toBe(1);
    expect(viaKey.stderr).toContain(`domain module ${path.join(cwd, 'src/nope.ts')} (named by \`module\` in ${path.join(cwd, 'domain.toml')}) does not exist`);
  });

  it('a module that does not compile fails naming the file', async () => {
    const cwd = tempProject({ 'domain.ts': "import { Domain } from '@protean-ts/core';\nexport const domain = new Domain('X';\n" });
    const { code, stderr } = await runCli(['--domain', 'domain.ts', 'info'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(`domain module ${path.join(cwd, 'domain.ts')} failed to compile`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('a module that throws while loading fails naming the file and the error', async () => {
    const cwd = tempProject({ 'domain.ts': "throw new TypeError('boom at import');\n" });
    const { code, stderr } = await runCli(['--domain', 'domain.ts', 'info'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(`domain module ${path.join(cwd, 'domain.ts')} failed to load: TypeError: boom at import`);
  });

  it('without --domain or a module key, says how to name the domain', async () => {
    const cwd = tempProject({ 'domain.toml': 'event_processing = "sync"\n' });
    const { code, stderr } = await runCli(['info'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain('no domain to load: pass --domain path/to/domain.ts, or add `module = "path/to/domain.ts"` to domain.toml');
  });

  it('regression (tsImport loads a second @protean-ts/core): the domain shares the CLI’s core, so its Domain is recognised', async () => {
    // With tsx's tsImport the domain's `new Domain` came from a namespaced copy of core and the
    // CLI reported "a Domain from a different copy of @protean-ts/core".
    const cwd = tempProject({ 'domain.ts': TS_DOMAIN });
    const { code, stderr } = await runCli(['--domain', 'domain.ts', 'info'], { cwd });
    expect(stderr).not.toContain('different copy');
    expect(code).toBe(0);
  });

  it('loads a domain inside the monorepo that imports @protean-ts/core by package name (as examples/ do)', async () => {
    const domain = path.join(import.meta.dirname, 'fixtures/workspace-domain/domain.ts');
    expect(fs.existsSync(domain)).toBe(true);
    const { code, stdout, stderr } = await runCli(['--domain', domain, 'info'], { cwd: import.meta.dirname });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('aggregate Ticket → default.ticket: id, title');
  });

  it('loads the example shop (examples/shop), whose modules import workspace packages by name', async () => {
    const shop = path.resolve(import.meta.dirname, '../../../examples/shop');
    const { code, stdout, stderr } = await runCli(['--domain', 'src/domain.ts', 'info', '--json'], { cwd: shop });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout) as { name: string; aggregates: Array<{ name: string }>; problems: string[] };
    expect(summary.name).toBe('Shop');
    expect(summary.problems).toEqual([]);
    expect(summary.aggregates.map((a) => a.name)).toContain('Order');
  });
});
