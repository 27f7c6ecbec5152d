/**
 * Reads a payload back into a message envelope, or says why it is not one (written by another
 * producer, or corrupted), so one bad message is dead-lettered on its own instead of failing the
 * read that returned it. What counts is what every broker checks (`brokerEnvelopeProblem`):
 * anything `ack` and `deadLetter` would refuse never reaches a handler.
 */
import { brokerEnvelopeProblem, type MessageEnvelope } from '@protean-ts/core';

const decoder = new TextDecoder();

export type DecodedPayload = { envelope: MessageEnvelope; text: string; error?: undefined } | { envelope: null; text: string; error: string };

export function decodeEnvelope(data: Uint8Array): DecodedPayload {
  const text = decoder.decode(data);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { envelope: null, text, error: 'the payload is not JSON' };
  }
  const problem = brokerEnvelopeProblem(value);
  if (problem !== null) return { envelope: null, text, error: `the envelope ${problem}` };
  return { envelope: value as MessageEnvelope, text };
}
