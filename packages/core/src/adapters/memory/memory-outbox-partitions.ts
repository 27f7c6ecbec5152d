/**
 * The claim index of the memory outbox: per target broker, per partition key, the unfinished
 * rows in (sequence, id) order. A claim looks only at the head of each key and visits keys
 * round-robin (a key it visited moves to the back), so its cost follows the keys it looks at,
 * not the backlog, like the PostgreSQL store's index walk.
 */
import type { OutboxRow } from '../../ports/outbox-store.js';

export class OutboxPartitions<R extends OutboxRow> {
  private readonly byBroker = new Map<string, Map<string, R[]>>();

  add(row: R): void {
    let keys = this.byBroker.get(row.targetBroker);
    if (!keys) {
      keys = new Map();
      this.byBroker.set(row.targetBroker, keys);
    }
    const queue = keys.get(row.partitionKey);
    if (!queue) {
      keys.set(row.partitionKey, [row]);
      return;
    }
    // Rows usually arrive in order; otherwise insert at their place.
    let at = queue.length;
    while (at > 0 && before(row, queue[at - 1]!)) at -= 1;
    queue.splice(at, 0, row);
  }

  remove(row: R): void {
    const keys = this.byBroker.get(row.targetBroker);
    const queue = keys?.get(row.partitionKey);
    if (!keys || !queue) return;
    const at = queue.indexOf(row);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) keys.delete(row.partitionKey);
    if (keys.size === 0) this.byBroker.delete(row.targetBroker);
  }

  /** Up to `limit` heads of keys of `broker` that `isDue` accepts; visited keys rotate to the back. */
  takeDueHeads(broker: string, limit: number, isDue: (row: R) => boolean): R[] {
    const keys = this.byBroker.get(broker);
    if (!keys || limit <= 0) return [];
    const taken: R[] = [];
    const visited: string[] = [];
    for (const [key, queue] of keys) {
      visited.push(key);
      if (isDue(queue[0]!)) taken.push(queue[0]!);
      if (taken.length >= limit) break;
    }
    for (const key of visited) {
      const queue = keys.get(key)!;
      keys.delete(key);
      keys.set(key, queue);
    }
    return taken;
  }

  clear(): void {
    this.byBroker.clear();
  }
}

function before(a: OutboxRow, b: OutboxRow): boolean {
  return a.sequence < b.sequence || (a.sequence === b.sequence && Number(a.id) < Number(b.id));
}
