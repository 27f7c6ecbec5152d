/**
 * Thrown by `publishBatch` when some messages were published and others were refused by the
 * broker. `results` is in input order, so the caller can mark the published ones done and fail
 * only the rest; publishing them again would only duplicate (delivery is at-least-once).
 */
export type PublishResult = { ok: true; id: string } | { ok: false; error: Error };

export class BrokerBatchError extends Error {
  constructor(
    readonly brokerName: string,
    readonly results: readonly PublishResult[],
  ) {
    const failed = results.filter((r) => !r.ok);
    const first = failed.find((r): r is { ok: false; error: Error } => !r.ok);
    super(`Broker "${brokerName}" refused ${failed.length} of ${results.length} messages in a batch` + (first ? `; first error: ${first.error.message}` : ''));
    this.name = 'BrokerBatchError';
  }

  /** Ids of the published messages, `null` where the message failed, in input order. */
  get ids(): (string | null)[] {
    return this.results.map((r) => (r.ok ? r.id : null));
  }
}
