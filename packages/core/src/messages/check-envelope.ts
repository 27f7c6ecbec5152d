/**
 * Whether a received value may be trusted as a message envelope: its nesting is bounded (checked
 * first, without recursion, so nothing after it can overflow the stack), it has the shape the
 * framework relies on, and its checksum matches its content. Every failure is a named error no
 * retry can fix: `MalformedEnvelopeError`, `ChecksumMismatchError` or `MissingChecksumError`.
 */
import { ChecksumMismatchError } from '../errors/checksum-mismatch.error.js';
import { MalformedEnvelopeError } from '../errors/malformed-envelope.error.js';
import { MissingChecksumError } from '../errors/missing-checksum.error.js';
import { envelopeChecksum } from './envelope-checksum.js';
import type { MessageEnvelope } from './envelope.js';
import { MAX_MESSAGE_NESTING, nestsDeeperThan } from './message-nesting.js';
import { MAX_POSITION_KEY_LENGTH, positionOf } from './with-position.js';

/** The longest message id accepted (the framework writes 36-character UUIDs). */
export const MAX_MESSAGE_ID_LENGTH = 255;

export interface CheckEnvelopeOptions {
  /** Refuse envelopes without a checksum (`MissingChecksumError`). Default false: only a wrong checksum is refused. */
  requireChecksum?: boolean;
}

export function checkEnvelope(envelope: unknown, options: CheckEnvelopeOptions = {}): asserts envelope is MessageEnvelope {
  checkShape(envelope);
  const expected = envelope.metadata.envelope.checksum ?? '';
  if (expected === '' && !options.requireChecksum) return;
  const actual = envelopeChecksum(envelope);
  if (actual === expected) return;
  const id = clip(envelope.metadata.headers.id);
  const type = clip(envelope.metadata.headers.type);
  throw expected === '' ? new MissingChecksumError(id, type, actual) : new ChecksumMismatchError(id, type, clip(expected), actual);
}

function checkShape(envelope: unknown): asserts envelope is MessageEnvelope {
  if (!isObject(envelope)) throw new MalformedEnvelopeError(`got ${describe(envelope)}`);
  if (nestsDeeperThan(envelope, MAX_MESSAGE_NESTING)) {
    throw new MalformedEnvelopeError(`it nests deeper than ${MAX_MESSAGE_NESTING} levels (no message the framework writes does)`);
  }
  const { data, metadata } = envelope;
  if (!isObject(data)) throw new MalformedEnvelopeError(`"data" must be an object, got ${describe(data)}`);
  if (!isObject(metadata)) throw new MalformedEnvelopeError('"metadata" is missing');
  const { headers, domain, envelope: info } = metadata;
  if (!isObject(headers)) throw new MalformedEnvelopeError('"metadata.headers" is missing');
  if (!isNonBlank(headers.id)) throw new MalformedEnvelopeError(`"metadata.headers.id" must be a non-empty string, got ${describe(headers.id)}`);
  // Inboxes record and index the id; the framework's are UUIDs.
  if (headers.id.length > MAX_MESSAGE_ID_LENGTH || headers.id.includes('\u0000')) {
    throw new MalformedEnvelopeError(`"metadata.headers.id" must be at most ${MAX_MESSAGE_ID_LENGTH} characters without NUL, got ${describe(headers.id)}`);
  }
  const id = clip(headers.id);
  if (!isNonBlank(headers.type))
    throw new MalformedEnvelopeError(`message ${id}: "metadata.headers.type" must be a non-empty string, got ${describe(headers.type)}`);
  if (!isObject(domain)) throw new MalformedEnvelopeError(`message ${id}: "metadata.domain" is missing`);
  if (domain.kind !== 'EVENT' && domain.kind !== 'COMMAND') {
    throw new MalformedEnvelopeError(`message ${id}: "metadata.domain.kind" must be "EVENT" or "COMMAND", got ${describe(domain.kind)}`);
  }
  if (!isObject(info)) throw new MalformedEnvelopeError(`message ${id}: "metadata.envelope" is missing`);
  if (info.checksum !== undefined && typeof info.checksum !== 'string') {
    throw new MalformedEnvelopeError(`message ${id}: "metadata.envelope.checksum" must be a string, got ${describe(info.checksum)}`);
  }
  // Not covered by the checksum (the outbox assigns it later), so a bad one is refused here, not ignored.
  if (info.position !== undefined && positionOf(envelope) === null) {
    throw new MalformedEnvelopeError(
      `message ${id}: "metadata.envelope.position" must be { key, sequence }: a key of 1 to ${MAX_POSITION_KEY_LENGTH} characters without NUL and an integer sequence >= 1`,
    );
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Received text quoted in an error: a hostile producer may send megabytes where an id belongs. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** A short description for error texts: a received value may be huge, so its content is never quoted whole. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : typeof value === 'number' || typeof value === 'boolean' ? String(value) : typeof value;
}
