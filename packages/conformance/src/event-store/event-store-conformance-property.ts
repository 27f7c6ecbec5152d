/**
 * A property of every event store: whatever the interleaving of transactions that append, commit
 * or roll back, and of category readers reading pages in between, each reader ends up with every
 * committed event of its category exactly once, none of a rolled-back transaction, in strictly
 * increasing reader order, and each stream's events in stream order. So does a reader of both
 * categories (`readCategories`), reading a page whenever one of them does. The conformance suite
 * runs it with a fixed seed and the seeds that once found bugs; the load tier alone, with a random
 * seed and more runs (property-settings.ts: FC_RUNS, FC_SEED). Imports vitest and fast-check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DatabaseProvider, type ProviderTransaction, cursorOf, START_CURSOR, type ReaderCursor } from '@protean-ts/core';
import { before, eventually, EventFactory } from './event-store-conformance-fixtures.js';
import { propertyRuns, propertySeed } from '../property-settings.js';

const SLOTS = 4;
const FIXED_SEED = 20_261_124;
/** Random seeds that once found a bug, kept: 1687691687 had an older transaction continue a stream after a younger one. */
const REGRESSION_SEEDS = [1_687_691_687];

type Step =
  | { op: 'append'; slot: number; category: number; stream: number; count: number }
  | { op: 'commit' | 'rollback'; slot: number }
  | { op: 'read'; category: number; limit: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('append' as const), slot: fc.nat(SLOTS - 1), category: fc.nat(1), stream: fc.nat(2), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constantFrom('commit' as const, 'rollback' as const), slot: fc.nat(SLOTS - 1) }),
  fc.record({ op: fc.constant('read' as const), category: fc.nat(1), limit: fc.integer({ min: 1, max: 4 }) }),
);

interface Reader {
  categories: string[];
  cursor: ReaderCursor;
  seen: ReaderCursor[];
  events: { id: string; stream: string; position: number }[];
}

interface OpenTransaction {
  tx: ProviderTransaction;
  streams: Set<string>;
  messageIds: string[];
}

export interface EventStorePropertyHarness {
  /** A connected provider whose event store tables exist. */
  open(): Promise<DatabaseProvider>;
  /** Runs per seed (each run opens up to four transactions); FC_RUNS overrides it. */
  propertyRuns?: number;
}

/** The conformance suite's form: the fixed seed (or FC_SEED) and every regression seed. */
export function itKeepsReadersExactlyOnce(open: () => Promise<DatabaseProvider>, defaultRuns: number): void {
  itKeepsReadersExactlyOnceFor(open, [propertySeed(FIXED_SEED), ...REGRESSION_SEEDS], propertyRuns(defaultRuns));
}

/**
 * The property alone, for a `*.load.spec.ts`: a random seed (or FC_SEED) and `propertyRuns`
 * runs, 2,000 unless given.
 */
export function describeEventStoreReaderProperty(name: string, harness: EventStorePropertyHarness): void {
  describe(`EventStore reader property: ${name}`, () => {
    itKeepsReadersExactlyOnceFor(() => harness.open(), [propertySeed('random')], propertyRuns(harness.propertyRuns ?? 2_000));
  });
}

function itKeepsReadersExactlyOnceFor(open: () => Promise<DatabaseProvider>, seeds: number[], numRuns: number): void {
  for (const seed of seeds) {
    it(
      `any interleaving of appends, commits, rollbacks and reads: readers get each committed event exactly once, in order (seed ${seed})`,
      async () => {
        const provider = await open();
        const store = provider.eventStore;
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
            const factories = [new EventFactory(), new EventFactory()];
            // The categories are new: every reader starts from the beginning.
            const reader = (categories: string[]): Reader => ({ categories, cursor: START_CURSOR, seen: [], events: [] });
            const readers = factories.map((f) => reader([f.category]));
            // Not a step of its own, so the seeds above still make the sequences they were kept for.
            const both = reader(factories.map((f) => f.category));
            const slots: (OpenTransaction | undefined)[] = Array(SLOTS).fill(undefined);
            const committed = [new Set<string>(), new Set<string>()];
            const rolledBack = new Set<string>();
            const categoryOfId = new Map<string, number>();

            const end = async (slot: number, commit: boolean) => {
              const open = slots[slot];
              if (!open) return;
              slots[slot] = undefined;
              await (commit ? open.tx.commit() : open.tx.rollback());
              for (const id of open.messageIds) (commit ? committed[categoryOfId.get(id)!]! : rolledBack).add(id);
            };
            const readPage = async (reader: Reader, limit: number) => {
              const [only, ...more] = reader.categories;
              const page =
                more.length === 0
                  ? await store.readCategory(only!, { after: reader.cursor, limit })
                  : await store.readCategories(reader.categories, { after: reader.cursor, limit });
              reader.cursor = page.cursor;
              for (const e of page.events) {
                reader.seen.push(cursorOf(e));
                reader.events.push({ id: e.messageId, stream: e.streamName, position: e.position });
              }
            };
            const read = async (category: number, limit: number) => {
              await readPage(readers[category]!, limit);
              await readPage(both, limit);
            };

            try {
              for (const s of steps) {
                if (s.op === 'read') await read(s.category, s.limit);
                else if (s.op !== 'append') await end(s.slot, s.op === 'commit');
                else {
                  const f = factories[s.category]!;
                  const stream = f.stream(`s${s.stream}`);
                  // Two open transactions never share a stream here: on PostgreSQL the second would wait for the first.
                  if (slots.some((o, i) => i !== s.slot && o?.streams.has(stream))) continue;
                  const open = (slots[s.slot] ??= { tx: await provider.begin(), streams: new Set(), messageIds: [] });
                  const events = f.events(s.count);
                  await store.append(open.tx, stream, events);
                  open.streams.add(stream);
                  for (const e of events) {
                    open.messageIds.push(e.messageId);
                    categoryOfId.set(e.messageId, s.category);
                  }
                }
              }
            } finally {
              for (let slot = 0; slot < SLOTS; slot++) await end(slot, slot % 2 === 0);
            }

            const everyCommitted = [
              ...readers.map((reader, c) => ({ reader, committed: committed[c]! })),
              { reader: both, committed: new Set([...committed[0]!, ...committed[1]!]) },
            ];
            for (const { reader, committed: expected } of everyCommitted) {
              await eventually(`every committed event of ${reader.categories.join(' and ')}`, async () => {
                await readPage(reader, 5);
                return reader.events.length >= expected.size;
              });
              const ids = reader.events.map((e) => e.id);
              expect(new Set(ids).size).toBe(ids.length);
              expect(new Set(ids)).toEqual(expected);
              expect(ids.some((id) => rolledBack.has(id))).toBe(false);
              for (let i = 1; i < reader.seen.length; i++) expect(before(reader.seen[i - 1]!, reader.seen[i]!)).toBe(true);
              const positions = new Map<string, number>();
              for (const e of reader.events) {
                expect(e.position).toBe((positions.get(e.stream) ?? -1) + 1);
                positions.set(e.stream, e.position);
              }
            }
          }),
          { seed, numRuns },
        );
      },
      Math.max(120_000, numRuns * 100),
    );
  }
}
