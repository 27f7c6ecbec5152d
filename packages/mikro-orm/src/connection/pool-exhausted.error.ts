/**
 * Thrown when no connection of a provider's pool came free within the acquire timeout while
 * every one of them was in use: the database answers, the pool is too small for the work (or a
 * transaction is held open too long). Told apart from an unreachable database, which fails the
 * same wait with connections that cannot be created, so an operator looks in the right place.
 */
export class PoolExhaustedError extends Error {
  override readonly name = 'PoolExhaustedError';
  /** Waiting again may well succeed: the connections come back as their work finishes. */
  readonly retryable = true;

  constructor(
    readonly provider: string,
    readonly poolSize: number,
    waitedMs: number,
  ) {
    super(
      `[databases.${provider}] every connection of its pool (pool_size = ${poolSize}) stayed busy for ${waitedMs / 1000} s; ` +
        "the database answers, the pool is too small for the work: raise pool_size, lower the subscriptions' concurrency, or look for transactions held open",
    );
  }
}
