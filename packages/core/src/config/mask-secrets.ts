/**
 * Hides secrets before configuration is printed or logged: passwords inside URIs
 * (`postgresql://app:s3cret@db/shop` → `postgresql://app:***@db/shop`), password-like query
 * parameters, and values of keys whose name says they are secret.
 */
import type { DomainConfig } from './config-types.js';
import { isPlainObject } from './substitute-env.js';

export const MASK = '***';

const SECRET_KEY = /(pass(word)?|secret|token|api_?key|credentials?)$/i;
const SECRET_QUERY = /([?&](?:password|pass|secret|token|api_?key)=)([^&#]*)/gi;
// user:password@ right after `scheme://`, anywhere in the text (log messages embed URIs).
// The password may hold ':' but not '@', '/' or whitespace (those must be percent-encoded).
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)([^\s@/]*)@/gi;

/** The text with URI passwords and password-like query parameters replaced by `***`. */
export function maskUri(uri: string): string {
  return uri
    .replace(USERINFO, (_m, head: string, password: string) => (password ? `${head}${MASK}@` : `${head}@`))
    .replace(SECRET_QUERY, (_m, head: string, value: string) => (value ? `${head}${MASK}` : head));
}

/** A deep copy of the configuration that is safe to print. */
export function maskSecrets<T = DomainConfig>(config: T): T {
  const walk = (value: unknown, key: string): unknown => {
    if (typeof value === 'string') return SECRET_KEY.test(key) && value !== '' ? MASK : maskUri(value);
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, k);
      return out;
    }
    return value;
  };
  return walk(config, '') as T;
}
