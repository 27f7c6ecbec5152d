/**
 * `${VAR}` and `${VAR|default}` substitution inside string values of domain.toml, so secrets
 * and per-host settings stay out of the file. Unset variables without a default are collected
 * as problems (every one, with its key path) rather than silently becoming empty strings.
 */
import type { ConfigProblem } from './config-error.js';
import { isPlainObject } from './is-plain-object.js';

export { isPlainObject };

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\|([^}]*))?\}/g;

export interface SubstitutionResult {
  value: unknown;
  problems: ConfigProblem[];
  /** Key paths whose value was exactly one placeholder: validation may coerce them to numbers or booleans. */
  wholeValuePaths: Set<string>;
}

type Env = Record<string, string | undefined>;

export function substituteEnv(value: unknown, env: Env): SubstitutionResult {
  const problems: ConfigProblem[] = [];
  const wholeValuePaths = new Set<string>();
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string') return replaceIn(node, at, env, problems, wholeValuePaths);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}[${i}]`));
    if (isPlainObject(node)) {
      const out: Record<string, unknown> = Object.create(null);
      for (const [key, child] of Object.entries(node)) out[key] = walk(child, at ? `${at}.${key}` : key);
      return out;
    }
    return node;
  };
  return { value: walk(value, ''), problems, wholeValuePaths };
}

function replaceIn(text: string, at: string, env: Env, problems: ConfigProblem[], whole: Set<string>): string {
  let matches = 0;
  const result = text.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
    matches++;
    // Own variables only: `${toString}` must not find Object.prototype.toString.
    const set = Object.hasOwn(env, name) ? env[name] : undefined;
    if (typeof set === 'string' && set !== '') return set;
    if (fallback !== undefined) return fallback;
    problems.push({
      path: at,
      message: `environment variable ${name} is not set; export it or give a default with \${${name}|value}`,
    });
    return '';
  });
  if (matches === 1 && /^\$\{[^}]*\}$/.test(text)) whole.add(at);
  return result;
}
