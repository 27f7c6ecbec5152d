/**
 * The Redis entry codec against arbitrary stream entries (thousands, no Redis needed): decoding
 * never throws, and what it lets through is exactly what the entry held and passes every check
 * the broker's calls make (so ack and deadLetter can never refuse it, leaving it pending), and
 * nests no deeper than any message; what it refuses carries a reason. Listing dead letters
 * never throws either. Run by redis-entry-codec.property.unit.spec.ts (a fixed seed, the fast
 * tier) and redis-entry-codec.property.load.spec.ts (a random seed, more runs; FC_RUNS, FC_SEED).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InlineBroker, MAX_MESSAGE_NESTING, nestsDeeperThan, type MessageEnvelope } from '@protean-ts/core';
import { propertyRun, sampleBrokerEnvelope, type PropertyTier } from '@protean-ts/conformance';
import { decodeEntry, toDeadLetter, type RawEntry } from '../src/redis-entry-codec.js';

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', ' ', '\u0000', 'envelope', '__proto__', 'null', '{}', '[]'));

/** An envelope JSON text: the sample one, one of its parts replaced or removed, or deep nesting. */
const envelopeText: fc.Arbitrary<string> = fc.oneof(
  fc.constant(null).map(() => JSON.stringify(sampleBrokerEnvelope('s'))),
  fc
    .record({
      path: fc.constantFrom('data', 'metadata', 'metadata.headers', 'metadata.headers.id', 'metadata.headers.type', 'metadata.domain', 'metadata.envelope'),
      value: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 3 }), text), { nil: undefined }),
    })
    .map(({ path, value }) => {
      const envelope = sampleBrokerEnvelope('s') as unknown as Record<string, unknown>;
      const steps = path.split('.');
      let target = envelope;
      for (const step of steps.slice(0, -1)) target = target[step] as Record<string, unknown>;
      if (value === undefined) delete target[steps[steps.length - 1]!];
      else target[steps[steps.length - 1]!] = value;
      return JSON.stringify(envelope);
    }),
  fc
    .integer({ min: MAX_MESSAGE_NESTING - 3, max: 20_000 })
    .map((levels) => JSON.stringify(sampleBrokerEnvelope('s')).replace('"data":{', `"data":{"deep":${'['.repeat(levels)}${']'.repeat(levels)},`)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  text,
);

const fields: fc.Arbitrary<string[]> = fc.oneof(
  fc.array(text, { maxLength: 9 }),
  fc
    .tuple(fc.array(fc.tuple(text, text), { maxLength: 3 }), envelopeText, fc.array(fc.tuple(text, text), { maxLength: 3 }))
    .map(([before, envelope, after]) => [...before.flat(), 'envelope', envelope, ...after.flat()]),
);

/** The value of the last field of that name, as Redis clients read duplicates. */
function lastField(list: readonly string[], name: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i + 1 < list.length; i += 2) if (list[i] === name) found = list[i + 1];
  return found;
}

export function describeEntryCodecProperties(tier: PropertyTier): void {
  describe('redis entry codec: property-based', () => {
    const broker = new InlineBroker('codec-check');

    const decoding = propertyRun(tier, { seed: 20_261_124, fastRuns: 3_000, loadRuns: 30_000 });
    it(
      `decodes exactly what the entry holds, only when every broker call accepts it, and otherwise says why (seed ${decoding.seed})`,
      async () => {
        await fc.assert(
          fc.asyncProperty(fields, fc.integer({ min: 1, max: 100 }), async (entryFields, deliveryCount) => {
            const decoded = decodeEntry('s', ['1-0', entryFields], deliveryCount);
            if (!decoded.ok) {
              expect(decoded.problem).not.toBe('');
              expect(decoded.fields).toBe(entryFields);
              return;
            }
            const raw = lastField(entryFields, 'envelope')!;
            expect(decoded.message).toEqual({ id: '1-0', stream: 's', envelope: JSON.parse(raw), deliveryCount });
            expect(nestsDeeperThan(decoded.message.envelope, MAX_MESSAGE_NESTING)).toBe(false);
            // The broker's own argument checks (publish makes the same ones as ack and deadLetter).
            await broker.publish({ stream: 's', envelope: decoded.message.envelope as MessageEnvelope });
          }),
          decoding,
        );
      },
      Math.max(30_000, decoding.numRuns * 10),
    );

    const listing = propertyRun(tier, { seed: 20_261_124, fastRuns: 2_000, loadRuns: 20_000 });
    it(
      `lists any dead-letter entry without throwing (seed ${listing.seed})`,
      () => {
        fc.assert(
          fc.property(
            fields,
            fc.array(fc.tuple(fc.constantFrom('original_id', 'error', 'delivery_count', 'raw_fields', 'stream'), text), { maxLength: 4 }),
            (message, failure) => {
              const entry: RawEntry = ['2-0', [...message, ...failure.flat()]];
              const letter = toDeadLetter(entry);
              expect(letter.id).toBe('2-0');
              expect(typeof letter.error).toBe('string');
              if (letter.rawFields) expect(letter.rawFields.every((item) => typeof item === 'string')).toBe(true);
            },
          ),
          listing,
        );
      },
      Math.max(30_000, listing.numRuns * 10),
    );
  });
}
