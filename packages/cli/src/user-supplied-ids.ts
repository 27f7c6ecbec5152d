/**
 * Ids and names typed on the command line (aggregate ids, stream and subscription names, dead
 * letter ids). One that cannot name anything is a usage error before any database is asked, and
 * an error that echoes one shows it once, shortened, so a pasted page is not printed back whole.
 */
import { CliError, ExitCode } from './cli-error.js';

/** Characters of a user-supplied id an error message shows; longer ones are cut with their length said. */
export const ECHO_LIMIT = 120;

/**
 * The id, refused with exit 2 when it is empty or only whitespace (it would name a stream
 * `<category>-` or read nothing) or holds a NUL character (PostgreSQL text cannot store one, so
 * nothing can be named by it). `what` says which argument, e.g. "events history: <id>".
 */
export function requiredId(value: string, what: string, example: string): string {
  if (value.trim() === '') {
    throw new CliError(`${what} is ${value === '' ? 'empty' : 'only whitespace'}; give one, e.g. ${example}`, ExitCode.USAGE);
  }
  if (value.includes('\u0000')) {
    throw new CliError(`${what} ${echoId(value)} contains a NUL character (\\u0000), which no id or stream name can hold; remove it`, ExitCode.USAGE);
  }
  return value;
}

/** The id quoted for a message: control characters escaped, and past ECHO_LIMIT cut with "…" and its length. */
export function echoId(value: string): string {
  if (value.length <= ECHO_LIMIT) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, ECHO_LIMIT))}… (${value.length} characters)`;
}

/** Several ids for one message: each shortened, and at most `shown` of them with a count of the rest. */
export function echoIds(values: readonly string[], shown = 5): string {
  const listed = values.slice(0, shown).map(echoId).join(', ');
  return values.length > shown ? `${listed} and ${values.length - shown} more` : listed;
}
