/**
 * A counter domain for the consumer-guarantee tests: Counter aggregates raise Ticked { n } and
 * Noted events on the `<name>::counter` stream; the Tally handler records, per key, the `n` it saw
 * and how many runs overlap, and can be told to fail. Messages are published straight to the
 * broker with the position the outbox would have given them, so tests control order and repeats.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BaseAggregate,
  BaseEvent,
  BaseEventHandler,
  Domain,
  field,
  handle,
  serializeMessage,
  withPosition,
  ValidationError,
  type ConfigOverrides,
  type MessageEnvelope,
} from '@protean-ts/core';

export interface TallyProbe {
  /** key → the `n` of each handled Ticked, in handling order. */
  seen: Map<string, number[]>;
  runs: number;
  running: number;
  maxRunning: number;
  /** Keys with a run in progress; a second run of the same key at once is recorded in `overlaps`. */
  busyKeys: Set<string>;
  overlaps: number;
  /** n → what to throw when handling it. */
  failWith: Map<number, () => Error>;
  /** Largest random pause (ms) inside the handler. */
  jitterMs: number;
}

export function makeCounterDomain(name: string, config: ConfigOverrides) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-consumer-'));
  const domain = new Domain(name, { root, config });
  const probe: TallyProbe = { seen: new Map(), runs: 0, running: 0, maxRunning: 0, busyKeys: new Set(), overlaps: 0, failWith: new Map(), jitterMs: 0 };

  @domain.aggregate()
  class Counter extends BaseAggregate {
    @field.string() label?: string;
  }

  @domain.event({ partOf: Counter })
  class Ticked extends BaseEvent {
    @field.string({ required: true }) key!: string;
    @field.integer({ required: true }) n!: number;
  }

  @domain.event({ partOf: Counter })
  class Noted extends BaseEvent {
    @field.string({ required: true }) key!: string;
  }

  @domain.eventHandler({ partOf: Counter, streamCategory: Counter })
  class Tally extends BaseEventHandler {
    @handle(Ticked) async onTicked(event: Ticked): Promise<void> {
      probe.runs += 1;
      probe.running += 1;
      probe.maxRunning = Math.max(probe.maxRunning, probe.running);
      if (probe.busyKeys.has(event.key)) probe.overlaps += 1;
      probe.busyKeys.add(event.key);
      try {
        if (probe.jitterMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * probe.jitterMs));
        const fail = probe.failWith.get(event.n);
        if (fail) throw fail();
        probe.seen.set(event.key, [...(probe.seen.get(event.key) ?? []), event.n]);
      } finally {
        probe.running -= 1;
        probe.busyKeys.delete(event.key);
      }
    }
  }

  const stream = `${name.toLowerCase()}::counter`;
  const counters = new Map<string, Counter>();
  // Raised from an aggregate, so the event carries the metadata a real one would.
  const raised = (key: string, event: BaseEvent): MessageEnvelope => {
    let aggregate = counters.get(key);
    if (!aggregate) counters.set(key, (aggregate = Counter.create({})));
    aggregate.raise(event);
    const events = aggregate.pendingEvents();
    return serializeMessage(events[events.length - 1]!);
  };
  /** The envelope of Ticked { key, n } at the key's position `sequence` (default n). */
  const ticked = (key: string, n: number, sequence = n): MessageEnvelope =>
    withPosition(raised(key, Ticked.create({ key, n })), { key: `${stream}-${key}`, sequence });
  const noted = (key: string, sequence: number): MessageEnvelope => withPosition(raised(key, Noted.create({ key })), { key: `${stream}-${key}`, sequence });

  return { domain, probe, stream, ticked, noted, Counter, Ticked, Noted, Tally, ValidationError };
}
