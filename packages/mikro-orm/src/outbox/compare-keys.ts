/**
 * Orders partition keys the way the `"C"`-collated column does (UTF-8 byte order), so the claim
 * cursor computed here resumes exactly where PostgreSQL's walk stopped.
 */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
