/**
 * How many batched transactions of one provider may hold a connection at once: half the pool,
 * at least one. A batch holds its connection until every message in it is done, and under a
 * backlog every subscription always has one open; without a bound they took the whole pool, so
 * the outbox relay, retries (which run alone) and the inbox's own statements waited 10 s for a
 * connection and failed (measured in the shop's 300-order run with a killed worker). A batch
 * waiting for a permit holds no connection, and the other half of the pool is always there for
 * work that runs alone.
 */
export class BatchPermits {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  static forPool(poolSize: number): BatchPermits {
    return new BatchPermits(Math.max(1, Math.floor(poolSize / 2)));
  }

  async acquire(): Promise<void> {
    if (this.held < this.limit) {
      this.held += 1;
      return;
    }
    // Handed over directly by release(), so the count never goes past the limit.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held -= 1;
  }
}
