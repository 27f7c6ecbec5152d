/**
 * A dead letter is one JetStream message, so it must fit in the server's `max_payload` like any
 * other. A payload close to the limit no longer fits once wrapped in its letter: the letter then
 * keeps a truncated copy of it as `rawFields` (no `payload`, so replay leaves it), and its error
 * says how much was kept. The original stays in the stream under its sequence (`originalId`)
 * until the stream's limits remove it.
 */
import type { DeadLetterBody } from './nats-dead-letters.js';

/** Room left for the letter's headers (`Nats-Msg-Id`) within max_payload. */
const HEADER_ROOM_BYTES = 512;

const encoder = new TextEncoder();

/** `body` as it goes on the wire, truncated to fit `maxPayloadBytes` when needed. */
export function fitLetter(body: DeadLetterBody, maxPayloadBytes: number): string {
  const limit = maxPayloadBytes - HEADER_ROOM_BYTES;
  const whole = JSON.stringify(body);
  if (encoder.encode(whole).length <= limit) return whole;
  const original = body.payload ?? body.rawFields?.[1] ?? '';
  const originalBytes = encoder.encode(original).length;
  const field = body.payload === null ? (body.rawFields?.[0] ?? 'data') : 'data';
  // Shrink the copy until the letter fits: JSON escapes can make the text longer than its characters.
  let kept = Math.max(0, original.length - (encoder.encode(whole).length - limit) - 256);
  for (;;) {
    const copy = cutAt(original, kept);
    const keptBytes = encoder.encode(copy).length;
    const letter = JSON.stringify({
      ...body,
      error: `${body.error} (the message is too large for a dead letter: it was truncated: the first ${keptBytes} of its ${originalBytes} bytes are kept in rawFields)`,
      payload: null,
      rawFields: [field, copy],
    } satisfies DeadLetterBody);
    const size = encoder.encode(letter).length;
    if (size <= limit || kept === 0) return letter;
    kept = Math.max(0, Math.floor(kept - (size - limit) - 64));
  }
}

/** The first `length` UTF-16 units of `text`, never splitting a surrogate pair. */
function cutAt(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}
