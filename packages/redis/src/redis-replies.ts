/**
 * Unpacks ioredis pipeline and MULTI results (`[error, reply][]`), which report failures per
 * command instead of rejecting, so no error in a batch goes unnoticed.
 */

export type PipelineResults = [error: Error | null, reply: unknown][] | null;

/** The replies in order, or the first error (a connection error first, so an outage wins). */
export function repliesOrThrow(results: PipelineResults, isConnectionError: (error: unknown) => boolean): unknown[] {
  if (results === null) throw new Error('Redis aborted the transaction (EXEC returned nil)');
  const errors = results.map(([error]) => error).filter((error): error is Error => error !== null);
  const first = errors.find(isConnectionError) ?? errors[0];
  if (first) throw first;
  return results.map(([, reply]) => reply);
}
