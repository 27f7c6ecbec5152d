/**
 * The dead-letter stream `<stream>:dlq` of one inline stream: failed messages in the order
 * they failed, each with the error, group, failure time and delivery count.
 */
import type { DeadLetter } from '../../ports/broker.js';
import { StreamIdClock } from './stream-id-clock.js';

interface StoredDeadLetter extends Omit<DeadLetter, 'envelope'> {
  body: string;
}

export class InlineDeadLetters {
  private readonly letters: StoredDeadLetter[] = [];
  private readonly clock = new StreamIdClock();

  get length(): number {
    return this.letters.length;
  }

  add(letter: Omit<StoredDeadLetter, 'id'>): string {
    const id = this.clock.next();
    this.letters.push({ id, ...letter });
    return id;
  }

  list(count: number): DeadLetter[] {
    return this.letters.slice(0, count).map(({ body, ...rest }) => ({ ...rest, envelope: JSON.parse(body) }));
  }

  /** Removes and returns the letters with these ids (all when `ids` is undefined), oldest first. */
  take(ids: readonly string[] | undefined): { body: string }[] {
    const wanted = ids ? new Set(ids) : null;
    const taken: StoredDeadLetter[] = [];
    for (let i = 0; i < this.letters.length;) {
      if (!wanted || wanted.has(this.letters[i]!.id)) taken.push(...this.letters.splice(i, 1));
      else i += 1;
    }
    return taken;
  }

  clear(): number {
    return this.letters.splice(0).length;
  }
}
