/**
 * Gathers the requests made during one turn of the event loop (the subscription's keys run
 * concurrently) and settles them with one call: one broker round trip or one statement for many.
 */
export class TurnBatcher<I, R> {
  private pending: { item: I; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private scheduled = false;

  /** `flush` returns one result per item, in order. */
  constructor(private readonly flush: (items: I[]) => Promise<R[]>) {}

  submit(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.run());
      }
    });
  }

  private async run(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    try {
      const results = await this.flush(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(results[i]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
