import { describe, expect, it } from 'vitest';
import type { DeadLetterBody } from '../src/nats-dead-letters.js';
import { fitLetter } from '../src/nats-letter-size.js';

const LIMIT = 64 * 1024;
const bytes = (text: string) => Buffer.byteLength(text);

function letter(overrides: Partial<DeadLetterBody>): DeadLetterBody {
  return {
    originalId: '7',
    stream: 's',
    group: 'g',
    error: 'UndecodableEntryError: cannot be decoded',
    failedAt: '2024-01-02T03:04:05.000Z',
    deliveryCount: 1,
    payload: null,
    ...overrides,
  };
}

describe('fitLetter: a dead letter within max_payload', () => {
  it('keeps a letter that fits whole, byte for byte', () => {
    const body = letter({ rawFields: ['data', 'not json'] });
    expect(fitLetter(body, LIMIT)).toBe(JSON.stringify(body));
  });

  it.each([
    ['ASCII', 'x'],
    ['multi-byte characters', '☕é'],
    ['characters JSON escapes to six bytes', '\u0001"'],
    ['astral characters (surrogate pairs)', '𝄞'],
  ])('truncates a raw copy of %s to fit, saying how much it kept', (_what, unit) => {
    const raw = unit.repeat(Math.ceil(LIMIT / bytes(unit)));
    const fitted = fitLetter(letter({ rawFields: ['data', raw] }), LIMIT);
    expect(bytes(fitted)).toBeLessThanOrEqual(LIMIT - 512);
    const parsed = JSON.parse(fitted) as DeadLetterBody;
    const copy = parsed.rawFields![1]!;
    expect(raw.startsWith(copy)).toBe(true);
    expect(bytes(copy)).toBeGreaterThan((LIMIT - 512) / 8);
    expect(parsed.error).toBe(
      `UndecodableEntryError: cannot be decoded (the message is too large for a dead letter: it was truncated: the first ${bytes(copy)} of its ${bytes(raw)} bytes are kept in rawFields)`,
    );
    expect(parsed.payload).toBeNull();
  });

  it('turns an envelope too large to wrap into a truncated raw copy (replay then leaves it)', () => {
    const payload = JSON.stringify({ data: { blob: 'y'.repeat(LIMIT) }, metadata: {} });
    const parsed = JSON.parse(fitLetter(letter({ payload, error: 'handler failed' }), LIMIT)) as DeadLetterBody;
    expect(parsed.payload).toBeNull();
    expect(parsed.rawFields![0]).toBe('data');
    expect(payload.startsWith(parsed.rawFields![1]!)).toBe(true);
    expect(parsed.error).toMatch(/^handler failed \(the message is too large for a dead letter: it was truncated/);
  });
});
