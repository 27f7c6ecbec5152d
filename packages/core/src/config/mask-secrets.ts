/**
 * Hides secrets before configuration is printed or logged, whatever shape they take: passwords
 * inside URIs anywhere in a text (`postgresql://app:s3cret@db/shop` → `postgresql://app:***@db/shop`),
 * password-like query parameters, PostgreSQL key/value strings (`host=db password='s3 cret'`),
 * JSON-ish `"password": "…"` pairs, and every value under a key whose name says it is secret.
 */
import type { DomainConfig } from './config-types.js';
import { isPlainObject } from './is-plain-object.js';

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

/**
 * Keys of key/value connection strings and query strings whose values are never secret; an error
 * echoing a rejected value keeps these and hides every other one (see `maskLoosely`).
 */
const PLAIN_KEYS = new Set([
  'host',
  'hostaddr',
  'port',
  'dbname',
  'database',
  'user',
  'username',
  'sslmode',
  'application_name',
  'connect_timeout',
  'schema',
  'service',
  'target_session_attrs',
]);
// `key=value` with any key, even an empty or mistyped one (`pasword=`, `p[assword=`).
const ANY_KEY_VALUE = /([^\s=&?#;,'"]*)(\s*=\s*)('(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?|[^\s&#;,'"]+)/g;
// `"key": value` with any key.
const ANY_JSON_PAIR = /("([^"\\]*)"\s*:\s*)("(?:\\.|[^"\\])*"?|[^\s,}\]]+)/g;

/**
 * For a value echoed in an error or warning, which is often the value that was wrong: a mistyped
 * key (`pasword=`), a damaged URI scheme (`postgresql:[//app:pw@db`) or a JSON pair under a
 * misspelt name no longer looks like a secret to `maskText`. So in a rejected value, every
 * key/value and JSON pair value is hidden unless its key is known to be plain, and a `:…@` before
 * a host is hidden whatever precedes it. Printed configuration keeps `maskText`'s exact rules.
 */
function maskLoosely(text: string): string {
  const pairsHidden = maskText(text)
    .replace(ANY_KEY_VALUE, (match, key: string, eq: string) => (PLAIN_KEYS.has(key.toLowerCase()) ? match : `${key}${eq}${MASK}`))
    .replace(ANY_JSON_PAIR, (match, head: string, key: string) => (PLAIN_KEYS.has(key.toLowerCase()) ? match : `${head}"${MASK}"`));
  return pairsHidden.split(/(\s+)/).map(hideUserinfo).join('');
}

/** In one whitespace-free token, `…:secret@host` → `…:***@host`; the last '@' ends the userinfo. */
function hideUserinfo(token: string): string {
  const first = token.indexOf('@');
  if (first < 0) return token;
  const colon = token.lastIndexOf(':', first);
  if (colon < 0) return token;
  return `${token.slice(0, colon + 1)}${MASK}${token.slice(token.lastIndexOf('@'))}`;
}

/** A value as it may appear inside an error or warning: masked, then rendered compactly. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const masked = maskSecrets(value);
  if (typeof masked === 'string') return JSON.stringify(maskLoosely(masked));
  if (isPlainObject(masked)) return 'a table';
  let text: string;
  try {
    text = JSON.stringify(masked, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) ?? String(masked);
  } catch {
    text = String(masked);
  }
  return maskLoosely(text);
}
