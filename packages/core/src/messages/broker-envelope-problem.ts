/**
 * What a broker must not hand out as a message: a value `ack` and `deadLetter` would refuse (the
 * broker argument checks) or one nesting deeper than any message may. Such a payload can never
 * be settled through the port, so a broker's read dead-letters it raw instead of returning it.
 */
import { MAX_MESSAGE_NESTING, nestsDeeperThan } from './message-nesting.js';

/**
 * Why `value` (a parsed payload) is not an envelope a broker can deliver, phrased to follow "the
 * envelope" (`the envelope ${problem}`), or null when it is one.
 */
export function brokerEnvelopeProblem(value: unknown): string | null {
  if (!isObject(value)) return `is not a { data, metadata } object (got ${describe(value)})`;
  if (nestsDeeperThan(value, MAX_MESSAGE_NESTING)) return `nests deeper than ${MAX_MESSAGE_NESTING} levels`;
  if (!isObject(value.data)) return `is malformed: "data" must be an object, got ${describe(value.data)}`;
  const headers = isObject(value.metadata) ? value.metadata.headers : undefined;
  if (!isObject(headers)) return 'has no metadata.headers';
  for (const name of ['id', 'type'] as const) {
    // Blank counts as missing, as in the broker's argument checks.
    const field = headers[name];
    if (typeof field !== 'string' || field.trim() === '') return `has no metadata.headers.${name}`;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
