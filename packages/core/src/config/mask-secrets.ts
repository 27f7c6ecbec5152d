/**
 * Hides secrets before configuration is printed or logged, whatever shape they take: passwords
 * inside URIs anywhere in a text (`postgresql://app:s3cret@db/shop` → `postgresql://app:***@db/shop`),
 * password-like query parameters, PostgreSQL key/value strings (`host=db password='s3 cret'`),
 * JSON-ish `"password": "…"` pairs, and every value under a key whose name says it is secret.
 */
import type { DomainConfig } from './config-types.js';
import { isPlainObject } from './substitute-env.js';

export const MASK = '***';

/** Key names whose values are secret (`password`, `db_password`, `api_key`, `credentials`, …). */
const SECRET_KEY = /(pass(word|wd)?|pwd|secret|token|api_?key|credentials?)$/i;
const SECRET_NAME = String.raw`[\w.-]*?(?:pass(?:word|wd)?|pwd|secret|token|api_?key|credentials?)`;
// `scheme://userinfo@host`: the authority ends at / ? # or a character that cannot be in a URI;
// like URL parsers, the *last* '@' ends the userinfo, so an unencoded '@' in a password is covered.
const URI_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'`<>\\]*)@/gi;
// `password=…` as a query parameter or libpq key/value pair: quoted (to its closing quote, or to
// the end when unterminated) or bare (to the next separator).
const KEY_VALUE = new RegExp(String.raw`\b(${SECRET_NAME}\s*=\s*)('(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?|[^\s&#;,'"]+)`, 'gi');
// `"password": "…"` as in JSON embedded in a string value (or a rendered table).
const JSON_PAIR = new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)("(?:\\.|[^"\\])*"?|[^\s,}\]]+)`, 'gi');

/** The text with every recognisable secret replaced by `***`. */
export function maskText(text: string): string {
  return text
    .replace(URI_USERINFO, (match, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      if (colon < 0 || colon === userinfo.length - 1) return match;
      return `${scheme}${userinfo.slice(0, colon + 1)}${MASK}@`;
    })
    .replace(KEY_VALUE, (_m, head: string) => `${head}${MASK}`)
    .replace(JSON_PAIR, (_m, head: string) => `${head}"${MASK}"`);
}

/**
 * Kept for callers that mask a URI; it masks every shape `maskText` knows, since a "URI" setting
 * may hold a key/value connection string or free text.
 */
export function maskUri(uri: string): string {
  return maskText(uri);
}

/** A deep copy that is safe to print: strings masked, every value under a secret-named key hidden. */
export function maskSecrets<T = DomainConfig>(config: T): T {
  const walk = (value: unknown, secret: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, secret));
    if (isPlainObject(value)) {
      // No prototype: a user's `__proto__` key stays a plain key of the copy.
      const out: Record<string, unknown> = Object.create(null);
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, secret || SECRET_KEY.test(k));
      return out;
    }
    if (secret && value !== '' && value !== null && value !== undefined) return MASK;
    return typeof value === 'string' ? maskText(value) : value;
  };
  return walk(config, false) as T;
}

/** A value as it may appear inside an error or warning: masked, then rendered compactly. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const masked = maskSecrets(value);
  if (typeof masked === 'string') return JSON.stringify(masked);
  if (isPlainObject(masked)) return 'a table';
  let text: string;
  try {
    text = JSON.stringify(masked, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) ?? String(masked);
  } catch {
    text = String(masked);
  }
  return maskText(text);
}
