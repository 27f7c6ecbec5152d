/**
 * Whether a text is something a server can listen on: an IP address (v4 or v6, unbracketed)
 * or a hostname (RFC 1123 labels). A URL, a port or an empty string is neither.
 */
import { isIP } from 'node:net';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*\\.?$`);

export function isHost(value: string): boolean {
  return isIP(value) !== 0 || HOSTNAME.test(value);
}
