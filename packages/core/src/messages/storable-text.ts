/**
 * Text taken from a received message to be recorded (an inbox's passed position, a log line): a
 * hostile or broken producer may put megabytes or NUL characters there, and PostgreSQL text
 * refuses NUL, so recording it would fail on every delivery and the message would never end.
 * Only strings, numbers and booleans are text: `String()` of a parsed `{ "toString": "x" }` throws.
 */
export function storableText(value: unknown, maxLength: number): string {
  const primitive = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  const text = (primitive ? String(value) : '').replaceAll('\u0000', '');
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
