/**
 * `npm run example` (the README's first command) runs the demo with no services at all.
 * This runs the package's `start` script the same way and checks the story it tells.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const shopFolder = fileURLToPath(new URL('..', import.meta.url));

describe('npm run example', () => {
  it('places the demo orders on the embedded default and prints the flow', async () => {
    // Nothing of the caller's environment may switch it to PostgreSQL and Redis.
    const env = { ...process.env, PROTEAN_ENV: '', DATABASE_URL: '', REDIS_URL: '' };
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'start'], { cwd: shopFolder, env, timeout: 60_000 });

    expect(stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
    expect(stdout).toContain('database: memory, broker: inline, event processing: sync');
    expect(stdout).toContain('= delivery-1 reported again: still 12 on hand');
    expect(stdout).toContain('events: OrderPlaced → UnitsReserved → StockReserved → OrderConfirmed → PaymentCaptured → OrderPaid');
    expect(stdout).toContain('cancelled  out of stock (KETTLE-GOOSE: 1 wanted, 0 available)');
    expect(stdout).toContain('events: OrderPlaced → UnitsReserved → StockReserved → OrderConfirmed → PaymentDeclined → OrderCancelled → UnitsReleased → StockReleased');
    expect(stdout).toContain('orders    0 placed, 0 confirmed, 2 paid, 2 cancelled');
    expect(stdout).toContain('payments  3 attempted, EUR 147.00 captured');
    // The grinder's history: catalogued, received, reserved twice, released once.
    expect(stdout).toMatch(/GRINDER-BURR\s+2 on hand, 1 reserved, 1 available \(5 events\)/);
  });
});
