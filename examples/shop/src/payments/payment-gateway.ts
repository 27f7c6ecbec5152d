/**
 * Stands in for a card processor. A real gateway is called over the network with the order's
 * id as the idempotency key, so a retried charge is answered, not charged again; this one
 * answers the same way every time: the test card `card-declined` and amounts above the card
 * limit are declined, and the test card `card-silent` is accepted but never answered (a real
 * gateway answers such charges later, by a callback that here never comes), so the order's
 * payment timeout cancels it.
 */
import { createHash } from 'node:crypto';
import type { Money } from '../shared/money.js';

export type GatewayResult =
  | { status: 'approved'; reference: string }
  | { status: 'declined'; reason: string }
  /** Accepted; the answer would come later and, for SILENT_CARD, never does. */
  | { status: 'awaiting-answer' };

export const DECLINED_CARD = 'card-declined';
export const SILENT_CARD = 'card-silent';
export const CARD_LIMIT = 5_000;

export function chargeCard(idempotencyKey: string, paymentMethod: string, amount: Money): GatewayResult {
  if (paymentMethod === SILENT_CARD) return { status: 'awaiting-answer' };
  if (paymentMethod === DECLINED_CARD) return { status: 'declined', reason: 'card declined by the issuer' };
  if (amount.amount > CARD_LIMIT) return { status: 'declined', reason: `${amount.format()} is above the card limit` };
  const reference = createHash('sha256').update(`${idempotencyKey}:${paymentMethod}`).digest('hex').slice(0, 12);
  return { status: 'approved', reference: `ch_${reference}` };
}
