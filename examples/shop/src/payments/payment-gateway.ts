/**
 * Stands in for a card processor. A real gateway is called over the network with the order's
 * id as the idempotency key, so a retried charge is answered, not charged again; this one
 * answers the same way every time: the test card `card-declined` and amounts above the card
 * limit are declined.
 */
import { createHash } from 'node:crypto';
import type { Money } from '../shared/money.js';

export type GatewayResult = { approved: true; reference: string } | { approved: false; reason: string };

export const DECLINED_CARD = 'card-declined';
export const CARD_LIMIT = 5_000;

export function chargeCard(idempotencyKey: string, paymentMethod: string, amount: Money): GatewayResult {
  if (paymentMethod === DECLINED_CARD) return { approved: false, reason: 'card declined by the issuer' };
  if (amount.amount > CARD_LIMIT) return { approved: false, reason: `${amount.format()} is above the card limit` };
  const reference = createHash('sha256').update(`${idempotencyKey}:${paymentMethod}`).digest('hex').slice(0, 12);
  return { approved: true, reference: `ch_${reference}` };
}
