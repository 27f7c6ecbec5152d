/**
 * How event-store streams are named: an entity stream is `<domain>::<category>-<id>`, its
 * category `<domain>::<category>`, and `$all` reads every stream. The category is everything
 * before the first `-` after the `::`, so ids may contain dashes (uuids) but categories may not.
 */
import { InvalidStreamNameError } from '../errors/invalid-stream-name.error.js';

/** The pseudo-category a reader names to read every stream of the store. */
export const ALL_STREAMS = '$all';

/** `streamName('shop', 'order', '42')` → `shop::order-42`. */
export function streamName(domain: string, category: string, id: string): string {
  if (!isPart(domain) || domain.includes('::')) {
    throw new InvalidStreamNameError(String(domain), 'the domain must be a non-empty name without "::" or whitespace');
  }
  if (!isPart(category) || category.includes('-') || category.includes('::')) {
    throw new InvalidStreamNameError(String(category), 'the category must be a non-empty name without "-", "::" or whitespace');
  }
  if (typeof id !== 'string' || id === '') throw new InvalidStreamNameError(String(id), 'the id must be a non-empty string');
  if (id.includes('\u0000')) throw new InvalidStreamNameError(id, 'the id must not contain a NUL character (\\u0000): PostgreSQL cannot store one in text');
  return `${domain}::${category}-${id}`;
}

/** `categoryOf('shop::order-42')` → `shop::order`. Throws for a name that is not an entity stream. */
export function categoryOf(stream: string): string {
  const dash = idDash(stream);
  if (dash < 0) throw new InvalidStreamNameError(String(stream), 'an entity stream is named <domain>::<category>-<id>; build it with streamName()');
  return stream.slice(0, dash);
}

/** True for `<domain>::<category>-<id>` with every part present. */
export function isEntityStream(stream: unknown): stream is string {
  return typeof stream === 'string' && idDash(stream) >= 0;
}

/** True for `<domain>::<category>` (no id) or `$all`: what category readers accept. */
export function isCategory(category: unknown): category is string {
  if (category === ALL_STREAMS) return true;
  if (typeof category !== 'string') return false;
  const separator = category.indexOf('::');
  return (
    separator > 0 &&
    isPart(category.slice(0, separator)) &&
    isPart(category.slice(separator + 2)) &&
    !category.slice(separator + 2).includes('-') &&
    !category.slice(separator + 2).includes('::')
  );
}

/** Index of the dash that ends the category, or -1 when `stream` is not an entity stream name. */
function idDash(stream: string): number {
  if (typeof stream !== 'string') return -1;
  const separator = stream.indexOf('::');
  if (separator <= 0 || !isPart(stream.slice(0, separator))) return -1;
  const dash = stream.indexOf('-', separator + 2);
  if (dash <= separator + 2 || dash === stream.length - 1) return -1;
  const category = stream.slice(separator + 2, dash);
  return isPart(category) && !category.includes('::') ? dash : -1;
}

function isPart(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !/\s/.test(value);
}
