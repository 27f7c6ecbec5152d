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

/** `body` as it goes on the wire, truncated to fit `maxPayloadBytes` when needed. */
export function fitLetter(body: DeadLetterBody, maxPayloadBytes: number): string {
  const limit = maxPayloadBytes - HEADER_ROOM_BYTES;
  const whole = JSON.stringify(body);
  if (Buffer.byteLength(whole) <= limit) return whole;
  const original = body.payload ?? body.rawFields?.[1] ?? '';
  const originalBytes = Buffer.byteLength(original);
  const field = body.payload === null ? (body.rawFields?.[0] ?? 'data') : 'data';
  const truncated = (kept: number): string => {
    const copy = cutAt(original, kept);
    return JSON.stringify({
      ...body,
      error: `${body.error} (the message is too large for a dead letter: it was truncated: the first ${Buffer.byteLength(copy)} of its ${originalBytes} bytes are kept in rawFields)`,
      payload: null,
      rawFields: [field, copy],
    } satisfies DeadLetterBody);
  };
  // The longest copy that fits, by bisection: JSON escapes make a character take 1 to 6 bytes.
  let fits = 0;
  let tooLong = original.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (Buffer.byteLength(truncated(middle)) <= limit) fits = middle;
    else tooLong = middle;
  }
  return truncated(fits);
}

/** The first `length` UTF-16 units of `text`, never splitting a surrogate pair. */
function cutAt(text: string, length: number): string {
  if (length <= 0) return '';
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}
