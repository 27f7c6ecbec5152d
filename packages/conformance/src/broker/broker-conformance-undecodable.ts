/**
 * Conformance: a message the broker cannot decode (not JSON, an envelope `deadLetter` would
 * refuse, a body too large to wrap in a letter) goes to the dead letters raw, with the reason,
 * and nothing stays pending: neither it nor the valid message behind it is stuck.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Broker, DeadLetter, ReceivedMessage } from '@protean-ts/core';
import { sampleBrokerEnvelope, type ConformanceContext } from './broker-conformance-fixtures.js';

const NOW = { count: 100, blockMs: 0 };

/** An envelope that passes every check but its data: what a foreign producer might well send. */
function envelopeWithData(stream: string, data: unknown): Buffer {
  return Buffer.from(JSON.stringify({ ...sampleBrokerEnvelope(stream), data }));
}

export function undecodableConformance(ctx: ConformanceContext): void {
  const { publishRaw, payloadLimitBytes } = ctx.options;
  const applies = publishRaw !== undefined && ctx.claims('CONSUMER_GROUPS') && ctx.claims('ACK_NACK') && ctx.claims('DEAD_LETTER_QUEUE');

  /**
   * Puts `body` on a new stream with a valid message behind it, reads: only the valid message
   * comes back, and once it is acked nothing is pending. Returns the one dead letter.
   */
  async function deadLetteredAlone(broker: Broker, stream: string, body: Buffer): Promise<DeadLetter> {
    await broker.ensureGroup(stream, 'g');
    await publishRaw!(broker, stream, body);
    const valid = sampleBrokerEnvelope(stream, 1);
    await broker.publish({ stream, envelope: valid });
    const received: ReceivedMessage[] = [];
    for (let attempt = 0; attempt < 20 && received.length === 0; attempt += 1) received.push(...(await broker.read(stream, 'g', 'c1', NOW)));
    expect(received.map((m) => m.envelope)).toStrictEqual([valid]);
    expect(
      await broker.ack(
        stream,
        'g',
        received.map((m) => m.id),
      ),
    ).toBe(1);
    expect(await broker.groupStatus(stream, 'g')).toMatchObject({ pending: 0, lag: 0, exists: true });
    expect(await broker.read(stream, 'g', 'c2', NOW)).toEqual([]);
    const letters = await broker.listDeadLetters(stream);
    expect(letters).toHaveLength(1);
    const [letter] = letters;
    expect(letter).toMatchObject({ stream, group: 'g', envelope: null });
    // The reason names the message, so an operator can find it (and its producer).
    expect(letter!.error).toMatch(/cannot be decoded/);
    expect(letter!.error).toContain(letter!.originalId);
    expect(letter!.rawFields).toBeDefined();
    // Publishing it again cannot help: replay leaves it where it is.
    expect(await broker.replayDeadLetters(stream)).toBe(0);
    expect(await broker.listDeadLetters(stream)).toHaveLength(1);
    return letter!;
  }

  describe.runIf(applies)('undecodable messages', () => {
    afterEach(() => ctx.closeAll());

    it('dead-letters a body that is not JSON, raw, with the reason, and leaves nothing pending', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream('raw');
      const body = 'payment p-0; amount=12; naïve {';
      const letter = await deadLetteredAlone(broker, stream, Buffer.from(body));
      expect(letter.error).toMatch(/not JSON/);
      expect(letter.rawFields).toContain(body);
    });

    it.each([
      ['an array', ['order-1', 'order-2']],
      ['a string', 'order-1'],
    ])('dead-letters an envelope whose data is %s (deadLetter would refuse it) raw, with the reason', async (what, data) => {
      const broker = await ctx.open();
      const stream = ctx.stream('data');
      const body = envelopeWithData(stream, data);
      const letter = await deadLetteredAlone(broker, stream, body);
      expect(letter.error).toContain(`"data" must be an object, got ${what}`);
      expect(letter.rawFields).toContain(body.toString());
    });

    it.runIf(payloadLimitBytes !== undefined)('dead-letters a body just under the payload limit, its copy truncated to fit, with the reason', async () => {
      const broker = await ctx.open();
      const stream = ctx.stream('big');
      const body = `not json ${'x'.repeat(payloadLimitBytes! - 100)}`;
      const letter = await deadLetteredAlone(broker, stream, Buffer.from(body));
      expect(letter.error).toMatch(/not JSON/);
      const copy = letter.rawFields!.reduce((longest, field) => (field.length > longest.length ? field : longest), '');
      expect(copy.length).toBeGreaterThan(1_000);
      expect(body.startsWith(copy)).toBe(true);
      if (copy.length < body.length) expect(letter.error).toMatch(new RegExp(`truncated: the first ${copy.length} of its ${body.length} bytes`));
    });
  });
}
