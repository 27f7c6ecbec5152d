/**
 * Reads a payload back into a message envelope, or says why it is not one (written by another
 * producer, or corrupted), so one bad message is dead-lettered on its own instead of failing the
 * read that returned it.
 */
import type { MessageEnvelope } from '@protean-ts/core';

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
  const headers = (value as { metadata?: { headers?: { id?: unknown; type?: unknown } } } | null)?.metadata?.headers;
  if (
    typeof value !== 'object' ||
    value === null ||
    !('data' in value) ||
    typeof headers?.id !== 'string' ||
    !headers.id.trim() ||
    typeof headers.type !== 'string' ||
    !headers.type.trim()
  ) {
    return { envelope: null, text, error: 'the payload is not a { data, metadata } envelope with metadata.headers.id and type' };
  }
  return { envelope: value as MessageEnvelope, text };
}
