/**
 * Whether a connection URI is one its adapter can use, checked when domain.toml is loaded so
 * `config check` reports it: the scheme the adapter reads (not `mysql://` for PostgreSQL, not
 * `amqp://` for Redis), a host that is a hostname or an IP address, a port from 1 to 65535.
 * Only the authority is looked at: the password may hold anything, and the path is the adapter's.
 */
import { isIP } from 'node:net';

export interface UriSpec {
  /** Lower-case schemes without `://`, the first one the usual. */
  schemes: readonly string[];
  /** A URI of the expected form, shown in every problem. */
  example: string;
}

const SCHEME_AND_AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;
// RFC 3986 reg-name: unreserved, percent-encoded and sub-delimiter characters (`%2F…` is a socket path for libpq).
const REG_NAME = /^[A-Za-z0-9._~%!$&'()*+,;=-]+$/;

/** What is wrong with `uri`, as the rest of a sentence that starts with its key; undefined when it is usable. */
export function uriProblem(uri: string, spec: UriSpec): string | undefined {
  const expected = `a URI starting with ${spec.schemes.map((s) => `${s}://`).join(' or ')}`;
  const match = SCHEME_AND_AUTHORITY.exec(uri);
  if (!match) return `must be ${expected}, e.g. ${spec.example}`;
  const scheme = match[1]!.toLowerCase();
  if (!spec.schemes.includes(scheme)) return `must be ${expected}, not ${scheme}://, e.g. ${spec.example}`;
  // The last '@' ends the user and password, as URL parsers read it.
  const authority = match[2]!;
  const { host, port } = splitHostPort(authority.slice(authority.lastIndexOf('@') + 1));
  // Neither is quoted: with a "/" or "#" left in a password they are pieces of it. The caller shows the URI masked.
  if (port !== undefined && !isPort(port)) return `has a port that is not a whole number from 1 to 65535, e.g. ${spec.example}`;
  if (host !== '' && !isUriHost(host)) {
    return `has a host that is no hostname or IP address (percent-encode any "/", "?" or "#" in the password), e.g. ${spec.example}`;
  }
  return undefined;
}

function splitHostPort(hostPort: string): { host: string; port?: string } {
  const colon = hostPort.lastIndexOf(':');
  // `[::1]:5432`: the colons inside the brackets are the address's own.
  if (colon < 0 || colon < hostPort.lastIndexOf(']')) return { host: hostPort };
  const port = hostPort.slice(colon + 1);
  return port === '' ? { host: hostPort.slice(0, colon) } : { host: hostPort.slice(0, colon), port };
}

function isPort(text: string): boolean {
  return /^[0-9]{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535;
}

function isUriHost(host: string): boolean {
  if (host.startsWith('[') && host.endsWith(']')) return isIP(host.slice(1, -1)) === 6;
  return REG_NAME.test(host);
}
