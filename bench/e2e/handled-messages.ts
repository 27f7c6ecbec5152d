/**
 * Messages the server's subscriptions handled so far, read from its Prometheus endpoint (the
 * supervisor's sums its workers): the `protean_outcome="handled"` series of
 * `messaging_client_consumed_messages_total`, so skipped types and inbox duplicates do not count.
 */
import type { ShopServer } from '../../examples/shop/test/support/shop-server.js';

const HANDLED_SERIES = /^messaging_client_consumed_messages_total\{[^}]*protean_outcome="handled"[^}]*\}\s+(\S+)/;

/** The metrics URL the server logged at start (`health endpoints listening`); with several workers, the supervisor's. */
export function metricsUrl(server: ShopServer): string {
  const line = server.logs.find((l) => l.msg === 'health endpoints listening' && l.workerId === undefined);
  if (!line || typeof line.url !== 'string')
    throw new Error('the server logged no "health endpoints listening" line of its own; bench/e2e reads handled messages from its /metrics');
  return `${line.url}/metrics`;
}

export async function handledMessages(url: string): Promise<number> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}; bench/e2e reads handled messages from it`);
  let handled = 0;
  for (const line of (await response.text()).split('\n')) {
    const match = HANDLED_SERIES.exec(line);
    if (match) handled += Number(match[1]);
  }
  return handled;
}
