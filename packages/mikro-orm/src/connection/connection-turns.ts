/**
 * One PostgreSQL connection answers one statement at a time. node-postgres queues the rest
 * itself, but that queue is deprecated (a DeprecationWarning on stderr) and, after an error,
 * it holds the next statement (a ROLLBACK) while the failed one has not finished on the wire.
 * Code that shares a connection (a transaction used from a `Promise.all`, the LISTEN connection)
 * takes turns here instead, so the driver is never handed a statement while one is in flight.
 */
export class ConnectionTurns {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` once everything handed in before it has settled (resolved or rejected). */
  run<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(work);
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Resolves once everything handed in so far has settled. */
  async settled(): Promise<void> {
    await this.tail;
  }
}
