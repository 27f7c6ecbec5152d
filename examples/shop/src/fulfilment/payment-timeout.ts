/**
 * How long a confirmed order waits for its payment before OrderFulfilment cancels it.
 *
 * Short by default (5 s) so the demo shows a timeout while you watch and tests wait little; a real
 * shop would wait minutes. Set SHOP_PAYMENT_TIMEOUT (`500ms`, `30s`, `15m`, `2h`, or milliseconds)
 * where the manager runs: the server's workers in production, the demo's process on the embedded
 * default. It is read each time a timeout is scheduled, so a bad value fails that order's step,
 * with a message naming the variable, and the retry after a fix succeeds.
 */
import { parseDuration } from '@protean-ts/core';

export const PAYMENT_TIMEOUT_VARIABLE = 'SHOP_PAYMENT_TIMEOUT';
export const DEFAULT_PAYMENT_TIMEOUT = '5s';

/** The timeout in milliseconds; throws InvalidDurationError naming SHOP_PAYMENT_TIMEOUT when it is not a duration. */
export function paymentTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const configured = env[PAYMENT_TIMEOUT_VARIABLE]?.trim();
  const value = configured ? (/^\d+$/.test(configured) ? Number(configured) : configured) : DEFAULT_PAYMENT_TIMEOUT;
  return parseDuration(value, `${PAYMENT_TIMEOUT_VARIABLE} (how long an order waits for its payment)`);
}
