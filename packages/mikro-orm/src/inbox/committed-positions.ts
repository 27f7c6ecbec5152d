/**
 * What this process last committed per subscription and key: the hint that lets a
 * transaction take a key's next message on trust (advances-together.ts). Only a hint: a stale
 * entry (another worker moved the key since) costs one batch rolled back and run again, never a
 * wrong verdict, because the advance is checked at the commit. Bounded, oldest entries first out.
 */
export class CommittedPositions {
  private readonly positions = new Map<string, number>();

  constructor(private readonly capacity = 50_000) {}

  get(subscription: string, key: string): number | undefined {
    return this.positions.get(`${subscription}\u0000${key}`);
  }

  /** Drops what is known of a key: its trust did not hold (another worker moved it). */
  forget(subscription: string, key: string): void {
    this.positions.delete(`${subscription}\u0000${key}`);
  }

  /** Records `sequence` unless a higher one is known already (commits may report out of order). */
  set(subscription: string, key: string, sequence: number): void {
    const id = `${subscription}\u0000${key}`;
    const known = this.positions.get(id);
    if (known !== undefined && known >= sequence) return;
    // Re-inserted so the Map's order is the order of last use.
    this.positions.delete(id);
    this.positions.set(id, sequence);
    if (this.positions.size > this.capacity) this.positions.delete(this.positions.keys().next().value!);
  }
}
