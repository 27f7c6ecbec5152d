/**
 * Envelopes from a hostile or broken producer: each is refused with a named error no retry can
 * fix (malformed, checksum missing or wrong, unknown type, invalid field), never with a stack
 * overflow or another exception, and never handled with a silently changed value. Regression
 * tests first, then a property-based suite over thousands of generated envelopes.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseEvent,
  BaseEventHandler,
  ChecksumMismatchError,
  checkPositionPassed,
  configureLogging,
  Domain,
  field,
  handle,
  MalformedEnvelopeError,
  MAX_MESSAGE_NESTING,
  MissingChecksumError,
  nestsDeeperThan,
  positionOf,
  positionPassedEnvelope,
  UnknownMessageTypeError,
  ValidationError,
  withPosition,
  type MessageEnvelope,
} from '../../src/index.js';
import { canonicalJson } from '../../src/messages/canonical-json.js';
import { deserializeMessage } from '../../src/messages/deserialize-message.js';
import { envelopeChecksum } from '../../src/messages/envelope-checksum.js';
import { serializeMessage } from '../../src/messages/serialize-message.js';
import { stripEnvelope } from '../../src/messages/strip-envelope.js';

const handled: string[] = [];

function makeLedger(config?: Record<string, unknown>) {
  const domain = new Domain('Ledger', config ? { config } : {});

  @domain.aggregate()
  class Account extends BaseAggregate {
    @field.string() owner?: string;
  }

  @domain.event({ partOf: Account })
  class Credited extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer({ required: true }) amount!: number;
    @field.string() note?: string;
    @field.list({ of: 'string' }) tags?: string[];
    @field.dict() extra?: Record<string, unknown>;
  }

  @domain.eventHandler({ partOf: Account })
  class Bookkeeper extends BaseEventHandler {
    @handle(Credited) onCredited(event: Credited): void {
      handled.push(`${event.accountId}:${event.amount}`);
    }
  }

  const credited = (values: { amount?: number; note?: string; tags?: string[]; extra?: Record<string, unknown> } = {}): MessageEnvelope => {
    const account = Account.create({ owner: 'Ann' });
    const event = account.raise(Credited.create({ accountId: account.id, amount: values.amount ?? 5, ...values }));
    return withPosition(serializeMessage(event), { key: `ledger::account-${account.id}`, sequence: 1 });
  };
  return { domain, Credited, Bookkeeper, credited };
}

const ledger = makeLedger();

/** `levels` arrays nested inside each other. */
function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

/** The envelope as it arrives: JSON written by another process and parsed here. */
const overTheWire = (envelope: unknown): MessageEnvelope => JSON.parse(JSON.stringify(envelope)) as MessageEnvelope;

function resign(envelope: MessageEnvelope): MessageEnvelope {
  envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
  return envelope;
}

describe('malformed envelopes: regressions', () => {
  let restoreLogging: ReturnType<typeof configureLogging> | null = null;
  afterEach(() => {
    if (restoreLogging) configureLogging(restoreLogging);
    restoreLogging = null;
  });

  it('regression: an envelope nesting far deeper than any message is MalformedEnvelopeError, not a TypeError from canonicalJson or a stack overflow', () => {
    for (const levels of [MAX_MESSAGE_NESTING + 5, 100_000]) {
      const { metadata } = ledger.credited();
      // Parsed from text, as it arrives: JSON.parse takes any depth, JSON.stringify could not write it.
      const attempt = () =>
        deserializeMessage(ledger.domain, JSON.parse(`{"data":{"extra":${'['.repeat(levels)}${']'.repeat(levels)}},"metadata":${JSON.stringify(metadata)}}`));
      expect(attempt).toThrow(MalformedEnvelopeError);
      expect(attempt).toThrow(`nests deeper than ${MAX_MESSAGE_NESTING} levels`);
    }
  });

  it('measures nesting exactly where canonicalJson draws the line, without recursion', () => {
    // The root container is at depth 0: MAX_MESSAGE_NESTING + 1 levels are the most canonicalJson writes.
    expect(nestsDeeperThan(nested(MAX_MESSAGE_NESTING + 1), MAX_MESSAGE_NESTING)).toBe(false);
    expect(() => canonicalJson(nested(MAX_MESSAGE_NESTING + 1))).not.toThrow();
    expect(nestsDeeperThan(nested(MAX_MESSAGE_NESTING + 2), MAX_MESSAGE_NESTING)).toBe(true);
    expect(() => canonicalJson(nested(MAX_MESSAGE_NESTING + 2))).toThrow(/deeper than/);
    expect(nestsDeeperThan(JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000)), MAX_MESSAGE_NESTING)).toBe(true);
    expect(nestsDeeperThan({ a: 1, b: 'x', c: null }, 0)).toBe(false);
  });

  it('regression: domain.handleMessage refuses an envelope whose checksum was removed (MissingChecksumError), unless accept_unsigned_envelopes', async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    for (const accept of [false, true]) {
      const app = makeLedger({
        databases: { default: { provider: 'memory' } },
        server: { stream_subscription: { accept_unsigned_envelopes: accept } },
      });
      await app.domain.init();
      try {
        const signed = app.credited({ amount: 7 });
        const unsigned = stripEnvelope(signed);
        expect(unsigned.metadata.envelope.checksum).toBeUndefined();
        if (accept) {
          expect(await app.domain.handleMessage(unsigned)).toBe('handled');
        } else {
          await expect(app.domain.handleMessage(unsigned)).rejects.toThrow(MissingChecksumError);
          await expect(app.domain.handleMessage(unsigned)).rejects.toThrow(/accept_unsigned_envelopes = true/);
          await expect(app.domain.handleMessage(unsigned)).rejects.toBeInstanceOf(ChecksumMismatchError);
        }
        // A checksum that is present must match either way.
        const altered = structuredClone(signed);
        altered.data.amount = 700;
        await expect(app.domain.handleMessage(altered)).rejects.toThrow(ChecksumMismatchError);
        expect(await app.domain.handleMessage(signed)).toBe('handled');
      } finally {
        await app.domain.close();
      }
    }
  });

  it('regression: the outbox’s position markers are signed, and their data repeats the position the checksum covers', () => {
    const marker = positionPassedEnvelope({
      position: { key: 'ledger::account-1', sequence: 3 },
      messageId: 'm-1',
      messageType: 'Ledger.Credited.v1',
      streamCategory: 'ledger::account',
      reason: 'too large',
    });
    expect(marker.metadata.envelope.checksum).toBe(envelopeChecksum(marker));
    expect(() => checkPositionPassed(overTheWire(marker), { requireChecksum: true })).not.toThrow();

    expect(() => checkPositionPassed(stripEnvelope(marker), { requireChecksum: true })).toThrow(MissingChecksumError);
    const moved = overTheWire(marker);
    moved.metadata.envelope.position = { key: 'ledger::account-1', sequence: 9 };
    expect(() => checkPositionPassed(moved, { requireChecksum: true })).toThrow(/does not match the position its data passes/);
    const forged = overTheWire(marker);
    (forged.data as { passedPosition: { sequence: number } }).passedPosition.sequence = 9;
    expect(() => checkPositionPassed(forged, { requireChecksum: true })).toThrow(ChecksumMismatchError);
  });

  it('regression: a position or message id no inbox can store is refused, not recorded on every delivery', () => {
    const longKey = ledger.credited();
    longKey.metadata.envelope.position = { key: 'k'.repeat(10_000), sequence: 1 };
    expect(positionOf(longKey)).toBeNull();
    expect(() => deserializeMessage(ledger.domain, longKey)).toThrow(/"metadata.envelope.position" must be/);
    const nulKey = ledger.credited();
    nulKey.metadata.envelope.position = { key: 'ledger::account-\u0000', sequence: 1 };
    expect(() => deserializeMessage(ledger.domain, nulKey)).toThrow(MalformedEnvelopeError);
    const hugeId = ledger.credited();
    hugeId.metadata.headers.id = 'x'.repeat(1_000_000);
    const attempt = () => deserializeMessage(ledger.domain, resign(hugeId));
    expect(attempt).toThrow(/"metadata.headers.id" must be at most 255 characters/);
    // The error quotes a clipped id, not the megabyte.
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(500);
    }
  });

  it('refuses missing envelope parts and wrong types with MalformedEnvelopeError naming the part', () => {
    const cases: [string, (e: Record<string, any>) => void][] = [
      ['"metadata.envelope" is missing', (e) => delete e.metadata.envelope],
      ['"metadata.envelope" is missing', (e) => (e.metadata.envelope = null)],
      ['"metadata.envelope.checksum" must be a string', (e) => (e.metadata.envelope.checksum = 42)],
      ['"metadata.domain.kind" must be "EVENT" or "COMMAND"', (e) => (e.metadata.domain.kind = 'QUERY')],
      ['"metadata.headers.id" must be a non-empty string', (e) => (e.metadata.headers.id = '  ')],
      ['"data" must be an object, got an array', (e) => (e.data = [])],
    ];
    for (const [problem, mutate] of cases) {
      const envelope = overTheWire(ledger.credited()) as unknown as Record<string, any>;
      mutate(envelope);
      expect(() => deserializeMessage(ledger.domain, envelope as MessageEnvelope, { requireChecksum: true })).toThrow(problem);
    }
  });
});

// --- property-based -------------------------------------------------------------------------

const FIXED_SEED = 20_261_124;
const RANDOM_SEED = Math.floor(Math.random() * 2 ** 31);
const SEEDS = [
  ['fixed', FIXED_SEED],
  ['random', RANDOM_SEED],
] as const;

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

describe('malformed envelopes: property-based (deserializeMessage)', () => {
  it.each(SEEDS)('every generated envelope is handled with its exact content or refused with a named error (%s seed %i)', (_label, seed) => {
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
      { seed, numRuns: 3_000 },
    );
  });

  it.each(SEEDS)('arbitrary JSON values and unicode text are refused with a named error, never another exception (%s seed %i)', (_label, seed) => {
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
      { seed, numRuns: 2_000 },
    );
  });
});
