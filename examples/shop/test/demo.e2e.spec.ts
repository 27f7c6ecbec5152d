/**
 * `npm run example` (the README's first command) runs the demo with no services at all.
 * This runs the package's `start` script the same way and checks the story it tells. Its fifth
 * order waits for the payment timeout: SHOP_PAYMENT_TIMEOUT is shortened here to keep it quick.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const shopFolder = fileURLToPath(new URL('..', import.meta.url));

// `npm run example` compiles the shop and the framework's sources through tsx: a hang guard for a loaded machine.
describe('npm run example', { timeout: 120_000 }, () => {
  it('places the demo orders on the embedded default and prints the flow', async () => {
    // Nothing of the caller's environment may switch it to PostgreSQL and Redis.
    const env = { ...process.env, PROTEAN_ENV: '', DATABASE_URL: '', REDIS_URL: '', SHOP_PAYMENT_TIMEOUT: '1s' };
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'start'], { cwd: shopFolder, env, timeout: 60_000 });

    expect(stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
    expect(stdout).toContain("database: memory, broker: inline, event processing: async (the server's Engine in this process)");
    expect(stdout).toContain('= delivery-1 reported again: still 12 on hand');
    // The process manager's commands between the aggregates' events.
    expect(stdout).toContain(
      'messages: OrderPlaced → ReserveStock → UnitsReserved → StockReserved → ConfirmOrder → OrderConfirmed → ChargePayment → PaymentCaptured → MarkOrderPaid → OrderPaid',
    );
    expect(stdout).toContain('messages: OrderPlaced → ReserveStock → ReservationFailed → CancelOrder → OrderCancelled');
    expect(stdout).toContain('cancelled  out of stock (KETTLE-GOOSE: 1 wanted, 0 available)');
    expect(stdout).toContain(
      'messages: OrderPlaced → ReserveStock → UnitsReserved → StockReserved → ConfirmOrder → OrderConfirmed → ChargePayment → PaymentDeclined → CancelOrder → ReleaseStock → OrderCancelled → UnitsReleased → StockReleased',
    );
    // The silent card: the payment timeout fires once and cancels the order.
    expect(stdout).toContain(
      'messages: OrderPlaced → ReserveStock → UnitsReserved → StockReserved → ConfirmOrder → OrderConfirmed → ChargePayment → PaymentTimedOut → CancelOrder → ReleaseStock → OrderCancelled → UnitsReleased → StockReleased',
    );
    expect(stdout).toContain('3 cancelled  payment timed out');
    expect(stdout).toContain('orders    0 placed, 0 confirmed, 2 paid, 3 cancelled');
    expect(stdout).toContain('payments  4 attempted, EUR 147.00 captured');
    // The grinder's history: catalogued, received, reserved twice, released once.
    expect(stdout).toMatch(/GRINDER-BURR\s+2 on hand, 1 reserved, 1 available \(5 events\)/);
    // The cup's: catalogued, received, reserved for ada and for emma, released for emma.
    expect(stdout).toMatch(/CUP-ESPRESSO\s+12 on hand, 2 reserved, 10 available \(5 events\)/);
    expect(stdout).toMatch(/outbox {4}\d+ messages stored with their changes and relayed by the in-process server, 0 left/);
  });
});
