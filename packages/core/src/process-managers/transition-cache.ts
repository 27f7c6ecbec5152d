/**
 * The last committed transition of recently handled process-manager instances, by stream, so a
 * transition of an instance this process handled a moment ago does not read its stream again
 * (the shop's order-fulfilment manager made five reads per order, four of them of a state this
 * worker had just written; with key affinity an instance's events come to one worker).
 *
 * An entry is only a guess: the append that follows names the position it was read at, so a
 * stream another process moved on since is a version conflict, the entry is dropped, and the
 * rerun reads the stream. Entries are written only once the transition's unit (or its batch)
 * has committed, so a rolled-back transition is never remembered. States are kept as JSON text:
 * each use parses its own copy, which the handler may change freely.
 */
export interface CachedTransition {
  /** The stream's version after the transition. */
  position: number;
  /** The transition as stored (JSON). */
  json: string;
}

export class TransitionCache {
  private readonly entries = new Map<string, CachedTransition>();

  constructor(private readonly capacity = 10_000) {}

  get(stream: string): CachedTransition | undefined {
    const entry = this.entries.get(stream);
    if (entry) {
      // Most recently used last, so the oldest entry goes first when the cache is full.
      this.entries.delete(stream);
      this.entries.set(stream, entry);
    }
    return entry;
  }

  /** Keeps `entry` unless a later transition of the stream is already kept (hooks of two commits may run out of order). */
  set(stream: string, entry: CachedTransition): void {
    const kept = this.entries.get(stream);
    if (kept && kept.position > entry.position) return;
    this.entries.delete(stream);
    this.entries.set(stream, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(stream: string): void {
    this.entries.delete(stream);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
