/** The text of a caught value, for logs: an Error's message, anything else as a string. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
