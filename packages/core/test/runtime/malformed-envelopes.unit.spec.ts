/**
 * Envelopes from a hostile or broken producer: each is refused with a named error no retry can
 * fix (malformed, checksum missing or wrong, unknown type, invalid field), never with a stack
 * overflow or another exception, and never handled with a silently changed value. Regression
 * tests here; the property-based suite over thousands of generated envelopes is in
 * malformed-envelopes.properties.ts, run here at the fast tier's size.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChecksumMismatchError,
  checkPositionPassed,
  configureLogging,
  MalformedEnvelopeError,
  MAX_MESSAGE_NESTING,
  MissingChecksumError,
  nestsDeeperThan,
  positionOf,
  positionPassedEnvelope,
  type MessageEnvelope,
} from '../../src/index.js';
import { canonicalJson } from '../../src/messages/canonical-json.js';
import { deserializeMessage } from '../../src/messages/deserialize-message.js';
import { envelopeChecksum } from '../../src/messages/envelope-checksum.js';
import { stripEnvelope } from '../../src/messages/strip-envelope.js';
import { makeLedger, resign } from './malformed-envelopes-ledger.js';
import { describeMalformedEnvelopeProperties } from './malformed-envelopes.properties.js';

const ledger = makeLedger();

/** `levels` arrays nested inside each other. */
function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

/** The envelope as it arrives: JSON written by another process and parsed here. */
const overTheWire = (envelope: unknown): MessageEnvelope => JSON.parse(JSON.stringify(envelope)) as MessageEnvelope;

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

describeMalformedEnvelopeProperties('fast');
