/**
 * Debouncing of one subscription: of a key's messages read within `windowMs` of each other only
 * the latest is handled. A message waits until it has been held `windowMs` (counted from when
 * this process read it); if a later message of its key was read meanwhile, it is superseded:
 * acked without running the handler, its position passed in the key's order like a type the
 * handler ignores, and counted. Keys and order come from the inbox positions, so the latest
 * message of a key is known only among the messages this process reads: with several workers,
 * use `outbox.partitions` so each key is read by one of them.
 */
import { positionOf, type ReceivedMessage } from '@protean-ts/core';
import { MessageHeld } from './message-held.js';

export interface DebounceStatus {
  windowMs: number;
  /** Messages acked without running the handler because a later one of their key came within the window. */
  superseded: number;
}

/** Entries of messages not seen again for this many windows are forgotten (given back, taken by another worker). */
const FORGET_AFTER_WINDOWS = 20;

export class Debouncer {
  private readonly latest = new Map<string, { sequence: number; at: number }>();
  private readonly readAt = new Map<string, number>();
  private readonly supersededIds = new Set<string>();
  private superseded = 0;
  private lastSweep = Date.now();

  constructor(private readonly windowMs: number) {}

  /** A message was read (or taken over): the latest of its key so far, maybe. */
  seen(message: ReceivedMessage, now = Date.now()): void {
    const position = positionOf(message.envelope);
    if (!position) return;
    const known = this.latest.get(position.key);
    if (!known || known.sequence < position.sequence) this.latest.set(position.key, { sequence: position.sequence, at: now });
    if (!this.readAt.has(message.id)) this.readAt.set(message.id, now);
    this.sweep(now);
  }

  /** `superseded`, `run`, or throws MessageHeld while the message's window is open. */
  check(message: ReceivedMessage, now = Date.now()): 'superseded' | 'run' {
    const position = positionOf(message.envelope);
    if (!position) return 'run';
    const latest = this.latest.get(position.key);
    if (latest && latest.sequence > position.sequence) {
      if (!this.supersededIds.has(message.id)) {
        this.supersededIds.add(message.id);
        this.superseded += 1;
      }
      return 'superseded';
    }
    const readAt = this.readAt.get(message.id) ?? now;
    this.readAt.set(message.id, readAt);
    if (now - readAt < this.windowMs) throw new MessageHeld(readAt + this.windowMs - now, 'debounce window');
    return 'run';
  }

  /** The message was settled one way or another: its entries go. */
  done(message: ReceivedMessage): void {
    this.readAt.delete(message.id);
    this.supersededIds.delete(message.id);
    const position = positionOf(message.envelope);
    if (position && this.latest.get(position.key)?.sequence === position.sequence) this.latest.delete(position.key);
  }

  status(): DebounceStatus {
    return { windowMs: this.windowMs, superseded: this.superseded };
  }

  private sweep(now: number): void {
    const horizon = this.windowMs * FORGET_AFTER_WINDOWS;
    if (now - this.lastSweep < horizon) return;
    this.lastSweep = now;
    for (const [id, at] of this.readAt) if (now - at > horizon) this.readAt.delete(id);
    for (const [key, entry] of this.latest) if (now - entry.at > horizon) this.latest.delete(key);
    if (this.supersededIds.size > this.readAt.size) for (const id of this.supersededIds) if (!this.readAt.has(id)) this.supersededIds.delete(id);
  }
}
