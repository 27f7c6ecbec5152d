import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const VERSION = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('protean-ts basics', () => {
  it('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('--help lists the global options and the commands', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: protean-ts');
    for (const text of ['--domain <path>', '--config <path>', '--verbose', 'config', 'info']) expect(stdout).toContain(text);
  });

  it('config --help lists check', async () => {
    const { code, stdout } = await runCli(['config', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('check');
  });

  it('an unknown command is a usage error (exit 2)', async () => {
    const { code, stderr } = await runCli(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'frobnicate'");
  });

  it('an unknown option is a usage error (exit 2)', async () => {
    const { code, stderr } = await runCli(['config', 'check', '--yaml']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown option '--yaml'");
  });

  it('no command prints the help and exits 1', async () => {
    const { code, stderr } = await runCli([]);
    expect(code).toBe(1);
    expect(stderr).toContain('Usage: protean-ts');
  });

  it('the published bin (bin/protean-ts.js) runs too, from dist/ or else from the sources', async () => {
    const bin = fileURLToPath(new URL('../bin/protean-ts.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--version']);
    expect(stdout).toBe(`${VERSION}\n`);
  });
});
