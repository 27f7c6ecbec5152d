/**
 * `correlate: 'orderId'` or `correlate: { paymentOrderId: 'orderId' }`: which event field carries
 * the instance's identity, and which manager field keeps it. Undefined for a malformed value.
 */
import type { HandleOptions } from '../elements/handle.js';

export interface Correlation {
  eventField: string;
  managerField: string;
}

export function correlationOf(correlate: HandleOptions['correlate']): Correlation | undefined {
  if (typeof correlate === 'string') return correlate.trim() === '' ? undefined : { eventField: correlate, managerField: correlate };
  if (typeof correlate !== 'object' || correlate === null || Array.isArray(correlate)) return undefined;
  const entries = Object.entries(correlate);
  if (entries.length !== 1) return undefined;
  const [eventField, managerField] = entries[0]!;
  if (eventField.trim() === '' || typeof managerField !== 'string' || managerField.trim() === '') return undefined;
  return { eventField, managerField };
}
