/**
 * Malformed envelopes as properties: thousands of generated envelopes (parts replaced, removed or
 * added, nested deep, checksums stripped or recomputed) are each handled with their exact content
 * or refused with a named error, and arbitrary JSON values are always refused by name. Run by
 * malformed-envelopes.unit.spec.ts (fast tier) and malformed-envelopes.property.load.spec.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ChecksumMismatchError,
  MalformedEnvelopeError,
  MAX_MESSAGE_NESTING,
  UnknownMessageTypeError,
  ValidationError,
  type MessageEnvelope,
} from '../../src/index.js';
import { canonicalJson } from '../../src/messages/canonical-json.js';
import { deserializeMessage } from '../../src/messages/deserialize-message.js';
import { envelopeChecksum } from '../../src/messages/envelope-checksum.js';
import { serializeMessage } from '../../src/messages/serialize-message.js';
import { propertyRun, type PropertyTier } from '@protean-ts/conformance';
import { makeLedger, resign } from './malformed-envelopes-ledger.js';

const ledger = makeLedger();

/** The errors a refused envelope may raise: each names what is wrong, and none is worth a retry. */
const NAMED_ERRORS = [MalformedEnvelopeError, ChecksumMismatchError, UnknownMessageTypeError, ValidationError];

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'then', 'toJSON'];
const key = fc.oneof(fc.string(), fc.constantFrom(...PROTOTYPE_KEYS, 'data', 'metadata', 'headers', 'checksum', 'position'));
const anyJson = fc.jsonValue({ maxDepth: 4 });
/** Where a mutation lands. */
const PATHS = [
  [],
  ['data'],
  ['data', 'amount'],
  ['data', 'accountId'],
  ['data', 'tags'],
  ['data', 'extra'],
  ['metadata'],
  ['metadata', 'headers'],
  ['metadata', 'headers', 'id'],
  ['metadata', 'headers', 'type'],
  ['metadata', 'headers', 'time'],
  ['metadata', 'headers', 'stream'],
  ['metadata', 'envelope'],
  ['metadata', 'envelope', 'checksum'],
  ['metadata', 'envelope', 'position'],
  ['metadata', 'envelope', 'position', 'key'],
  ['metadata', 'envelope', 'position', 'sequence'],
  ['metadata', 'domain'],
  ['metadata', 'domain', 'kind'],
  ['metadata', 'domain', 'fqn'],
  ['metadata', 'domain', 'correlationId'],
  ['metadata', 'extensions'],
] as const;

type Mutation =
  | { kind: 'none' }
  | { kind: 'set'; path: readonly string[]; value: unknown; resign: boolean }
  | { kind: 'delete'; path: readonly string[]; resign: boolean }
  | { kind: 'addKey'; path: readonly string[]; key: string; value: unknown; resign: boolean }
  | { kind: 'nest'; levels: number; resign: boolean }
  | { kind: 'stripChecksum' }
  | { kind: 'replace'; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('set' as const), path: fc.constantFrom(...PATHS), value: anyJson, resign: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...PATHS), resign: fc.boolean() }),
  fc.record({ kind: fc.constant('addKey' as const), path: fc.constantFrom(...PATHS), key, value: anyJson, resign: fc.boolean() }),
  fc.record({ kind: fc.constant('nest' as const), levels: fc.integer({ min: MAX_MESSAGE_NESTING - 5, max: 5_000 }), resign: fc.boolean() }),
  fc.constant({ kind: 'stripChecksum' as const }),
  fc.record({ kind: fc.constant('replace' as const), value: fc.oneof(anyJson, fc.constantFrom(null, 0, '', [], 'envelope')) }),
);

// Text a string field can hold: string fields refuse NUL and lone surrogates (they cannot be stored).
const storableText = (maxLength: number) => fc.string({ unit: 'grapheme', maxLength }).map((text) => text.replaceAll('\u0000', ''));

const content = fc.record({
  amount: fc.integer({ min: -1e9, max: 1e9 }),
  note: storableText(40),
  tags: fc.array(storableText(8), { maxLength: 4 }),
  extra: fc.dictionary(key, anyJson, { maxKeys: 4 }),
});

/** The envelope as JSON text after the mutation: what a producer could write into a stream. */
function mutated(base: MessageEnvelope, change: Mutation): string {
  if (change.kind === 'replace') return JSON.stringify(change.value);
  if (change.kind === 'nest') {
    // Built as text: JSON.stringify itself cannot write a value nested thousands deep.
    const deep = `${'['.repeat(change.levels)}${']'.repeat(change.levels)}`;
    const text = JSON.stringify(base).replace('"data":{', `"data":{"deep":${deep},`);
    // Its deepest array sits at depth levels + 1 (envelope, data); deeper ones cannot be signed.
    if (!change.resign || change.levels + 1 > MAX_MESSAGE_NESTING) return text;
    return JSON.stringify(resign(JSON.parse(text) as MessageEnvelope));
  }
  // JSON text re-parsed, so "__proto__" becomes an own key as it would arrive from the wire.
  const envelope = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  if (change.kind === 'stripChecksum') delete (envelope as unknown as MessageEnvelope).metadata.envelope.checksum;
  if (change.kind === 'set' || change.kind === 'delete' || change.kind === 'addKey') {
    const path = change.path;
    let target: unknown = envelope;
    for (const step of path.slice(0, change.kind === 'addKey' ? path.length : -1)) target = isRecord(target) ? target[step] : undefined;
    const last = change.kind === 'addKey' ? change.key : path[path.length - 1];
    if (isRecord(target) && last !== undefined) {
      if (change.kind === 'delete') delete target[last];
      else Object.defineProperty(target, last, { value: change.value, enumerable: true, writable: true, configurable: true });
    } else if (change.kind === 'set' && path.length === 0) {
      return JSON.stringify(change.value);
    }
    if (change.resign) {
      try {
        resign(envelope as unknown as MessageEnvelope);
      } catch {
        // Too broken to sign: it goes out unsigned.
      }
    }
  }
  return JSON.stringify(envelope);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeMalformedEnvelopeProperties(tier: PropertyTier): void {
  describe('malformed envelopes: property-based (deserializeMessage)', () => {
    // 3,000 runs took 10 s on a busy machine: the fast tier runs fewer, the load tier many more.
    const generated = propertyRun(tier, { seed: 20_261_124, fastRuns: 1_000, loadRuns: 20_000 });
    it(`every generated envelope is handled with its exact content or refused with a named error (seed ${generated.seed})`, () => {
      fc.assert(
        fc.property(content, mutation, fc.boolean(), (values, change, requireChecksum) => {
          const base = ledger.credited(values);
          const text = mutated(base, change);
          const received = JSON.parse(text) as MessageEnvelope;
          let result: unknown;
          try {
            result = deserializeMessage(ledger.domain, received, { requireChecksum });
          } catch (error) {
            if (!NAMED_ERRORS.some((type) => error instanceof type))
              throw new Error(`unnamed error for ${text.slice(0, 300)}: ${String((error as Error)?.stack ?? error)}`);
            return;
          }
          expect(result).toBeInstanceOf(ledger.Credited);
          // Accepted: never with a changed value. Signed ones hash the same after the instance is serialized again.
          if (change.kind === 'none') {
            const again = serializeMessage(result as InstanceType<typeof ledger.Credited>);
            expect(again.metadata.envelope.checksum).toBe(base.metadata.envelope.checksum);
            expect(canonicalJson(again.data)).toBe(canonicalJson(base.data));
          }
          if (requireChecksum) expect(received.metadata.envelope.checksum).toBe(envelopeChecksum(received));
        }),
        generated,
      );
    });

    const arbitrary = propertyRun(tier, { seed: 20_261_124, fastRuns: 2_000, loadRuns: 20_000 });
    it(`arbitrary JSON values and unicode text are refused with a named error, never another exception (seed ${arbitrary.seed})`, () => {
      fc.assert(
        fc.property(fc.oneof(fc.jsonValue({ maxDepth: 6 }), fc.anything({ maxDepth: 4 })), (value) => {
          try {
            deserializeMessage(ledger.domain, value as MessageEnvelope);
          } catch (error) {
            expect(
              NAMED_ERRORS.some((type) => error instanceof type),
              String(error),
            ).toBe(true);
            return;
          }
          throw new Error('an arbitrary value was accepted as an envelope');
        }),
        arbitrary,
      );
    });
  });
}
