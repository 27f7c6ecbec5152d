/**
 * Ids typed on the command line that can name nothing are usage errors before any domain is
 * loaded. A NUL character cannot travel through a process's arguments, so these run `main`
 * in-process (the e2e specs cover empty and blank ids through the spawned CLI); and errors echo
 * an id once, shortened.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { echoId, echoIds } from '../src/user-supplied-ids.js';

async function protean(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'protean-ts', ...args], {
    cwd: '/',
    env: { ...process.env, PROTEAN_LOG_LEVEL: 'warn' },
    io: { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('ids given to events history, dlq replay and snapshot', () => {
  it.each([
    [['events', 'history', 'Account', 'a\u0000b'], 'events history: <id> "a\\u0000b" contains a NUL character'],
    [['events', 'read', 'shop::order-\u0000'], 'events read: <stream> "shop::order-\\u0000" contains a NUL character'],
    [['dlq', 'replay', 'shop::order\u0000'], 'dlq replay: <target> "shop::order\\u0000" contains a NUL character'],
    [['dlq', 'replay', 'Receipts', '--id', '1-0', '\u0000'], 'dlq replay: --id "\\u0000" contains a NUL character'],
    [['snapshot', 'create', '--aggregate', 'Account', '--id', '\u0000'], 'snapshot create: --id "\\u0000" contains a NUL character'],
  ])('refuses a NUL character in %j as a usage error, no domain loaded', async (args, message) => {
    const { code, stdout, stderr } = await protean(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    // Refused before the domain is looked for (there is none under /).
    expect(stderr).not.toContain('no domain to load');
    expect(stdout).toBe('');
  });
});

describe('echoing a user-supplied id', () => {
  it('quotes a short id as it is, escaping control characters', () => {
    expect(echoId('order-42')).toBe('"order-42"');
    expect(echoId('a\u001b[2Jb')).toBe('"a\\u001b[2Jb"');
  });

  it('cuts a long id to 120 characters and says how long it was', () => {
    expect(echoId('z'.repeat(10_000))).toBe(`"${'z'.repeat(120)}"… (10000 characters)`);
  });

  it('lists at most five ids, counting the rest', () => {
    expect(echoIds(['1', '2', '3', '4', '5', '6', '7'])).toBe('"1", "2", "3", "4", "5" and 2 more');
  });
});
