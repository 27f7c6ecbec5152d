/**
 * Text taken from a received message to be recorded (an inbox's passed position, a log line): a
 * hostile or broken producer may put megabytes or NUL characters there, and PostgreSQL text
 * refuses NUL, so recording it would fail on every delivery and the message would never end.
 */
export function storableText(value: unknown, maxLength: number): string {
  const text = String(value).replaceAll('\u0000', '');
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
