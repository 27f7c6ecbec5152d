/**
 * Checks a merged configuration against CONFIG_SCHEMA and the cross-key rules, collecting
 * every problem (errors) and every unknown key (warnings with a "did you mean" suggestion).
 * Values that were exactly one `${VAR}` placeholder are coerced to the number or boolean
 * their key expects, since environment variables are always strings.
 */
import type { ConfigProblem } from './config-error.js';
import type { DomainConfig } from './config-types.js';
import { CONFIG_SCHEMA, type KeySpec } from './config-schema.js';
import { REQUIRED_PROVIDER_KEYS, type KnownProviders } from './known-providers.js';
import { suggestKey } from './suggest-key.js';
import { isPlainObject } from './substitute-env.js';

export interface ValidationResult {
  config: DomainConfig;
  problems: ConfigProblem[];
  warnings: string[];
}

export interface ValidateOptions {
  providers: KnownProviders;
  /** Paths whose string value came from a whole `${VAR}` placeholder. */
  coercible?: ReadonlySet<string>;
}

export function validateConfig(input: unknown, options: ValidateOptions): ValidationResult {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const coercible = options.coercible ?? new Set<string>();

  const check = (spec: KeySpec, value: unknown, at: string): unknown => {
    switch (spec.kind) {
      case 'table':
        return checkTable(spec, value, at);
      case 'namedTables': {
        if (!isPlainObject(value)) return fail(at, 'must be a table', value);
        const out: Record<string, unknown> = {};
        for (const [name, entry] of Object.entries(value)) out[name] = check(spec.entry, entry, `${at}.${name}`);
        return out;
      }
      case 'string':
        return typeof value === 'string' ? value : fail(at, 'must be a string', value);
      case 'boolean': {
        const v = coerce(at, value, 'boolean');
        return typeof v === 'boolean' ? v : fail(at, 'must be true or false', value);
      }
      case 'enum':
        if (typeof value === 'string' && spec.values.includes(value)) return value;
        return fail(at, `must be one of ${spec.values.map((v) => `"${v}"`).join(', ')}`, value);
      case 'stringList':
        if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
        return fail(at, 'must be a list of strings, e.g. ["a", "b"]', value);
      case 'integer':
      case 'number': {
        const v = coerce(at, value, 'number');
        const wanted = spec.kind === 'integer' ? 'an integer' : 'a number';
        const ok = typeof v === 'number' && Number.isFinite(v) && (spec.kind === 'number' || Number.isInteger(v));
        if (!ok) return fail(at, `must be ${wanted}${rangeText(spec)}`, value);
        if ((spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
          return fail(at, `must be ${wanted}${rangeText(spec)}`, value);
        }
        return v;
      }
    }
  };

  const checkTable = (spec: KeySpec & { kind: 'table' }, value: unknown, at: string): unknown => {
    if (!isPlainObject(value)) return fail(at, 'must be a table', value);
    const out: Record<string, unknown> = {};
    const known = Object.keys(spec.keys);
    for (const [key, child] of Object.entries(value)) {
      const path = at ? `${at}.${key}` : key;
      const childSpec = spec.keys[key];
      if (childSpec) out[key] = check(childSpec, child, path);
      else if (spec.open) out[key] = child;
      else warnings.push(unknownKeyWarning(path, key, known));
    }
    return out;
  };

  const coerce = (at: string, value: unknown, to: 'number' | 'boolean'): unknown => {
    if (typeof value !== 'string' || !coercible.has(at)) return value;
    if (to === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
    const n = value.trim() === '' ? NaN : Number(value);
    return Number.isNaN(n) ? value : n;
  };

  const fail = (at: string, message: string, got: unknown): unknown => {
    problems.push({ path: at, message: `${message} (got ${show(got)})` });
    return got;
  };

  const config = checkTable(CONFIG_SCHEMA, input, '') as DomainConfig;
  if (isPlainObject(config)) checkCrossKeys(config, options.providers, problems, warnings);
  return { config, problems, warnings };
}

function checkCrossKeys(config: DomainConfig, providers: KnownProviders, problems: ConfigProblem[], warnings: string[]) {
  checkProviders('databases', config.databases, providers.databases, problems);
  checkProviders('brokers', config.brokers, providers.brokers, problems);
  const store = config.event_store;
  if (isPlainObject(store) && typeof store.provider === 'string' && !providers.eventStores.includes(store.provider)) {
    problems.push({ path: 'event_store.provider', message: unknownProvider(store.provider, providers.eventStores) });
  }

  const brokers = isPlainObject(config.brokers) ? Object.keys(config.brokers) : [];
  const outbox = isPlainObject(config.outbox) ? config.outbox : undefined;
  if (outbox && typeof outbox.broker === 'string' && !brokers.includes(outbox.broker)) {
    problems.push({ path: 'outbox.broker', message: undefinedBroker(outbox.broker, brokers) });
  }
  if (outbox && Array.isArray(outbox.external_brokers)) {
    outbox.external_brokers.forEach((name, i) => {
      if (typeof name !== 'string') return;
      if (!brokers.includes(name)) problems.push({ path: `outbox.external_brokers[${i}]`, message: undefinedBroker(name, brokers) });
      else if (name === outbox.broker) {
        warnings.push(`outbox.external_brokers[${i}]: "${name}" is already outbox.broker; events are published to it once`);
      }
    });
  }
  const inbox = isPlainObject(config.inbox) ? config.inbox : undefined;
  const databases = isPlainObject(config.databases) ? Object.keys(config.databases) : null;
  if (databases && inbox && inbox.enabled !== false && typeof inbox.database === 'string' && !databases.includes(inbox.database)) {
    problems.push({
      path: 'inbox.database',
      message: `database "${inbox.database}" is not configured; name one of [databases.*] (${databases.join(', ') || 'none'}) or set inbox.enabled = false`,
    });
  }
  const retry = outbox && isPlainObject(outbox.retry) ? outbox.retry : undefined;
  if (retry && typeof retry.base_delay_seconds === 'number' && typeof retry.max_backoff_seconds === 'number'
    && retry.max_backoff_seconds < retry.base_delay_seconds) {
    problems.push({
      path: 'outbox.retry.max_backoff_seconds',
      message: `must be at least outbox.retry.base_delay_seconds (${retry.base_delay_seconds}), got ${retry.max_backoff_seconds}`,
    });
  }
  const subscriptionType = isPlainObject(config.server) ? config.server.default_subscription_type : undefined;
  if (config.enable_outbox === true && subscriptionType === 'event_store') {
    problems.push({
      path: 'enable_outbox',
      message: 'enable_outbox = true conflicts with server.default_subscription_type = "event_store": '
        + 'event-store subscriptions read events from the event store, not from a broker the outbox feeds. '
        + 'Use default_subscription_type = "stream", or drop enable_outbox',
    });
  }
}

function checkProviders(section: 'databases' | 'brokers', tables: unknown, known: readonly string[], problems: ConfigProblem[]) {
  if (!isPlainObject(tables)) return;
  for (const [name, entry] of Object.entries(tables)) {
    if (!isPlainObject(entry)) continue;
    const provider = entry.provider;
    if (provider === undefined) {
      problems.push({ path: `${section}.${name}.provider`, message: `is required (one of ${known.join(', ')})` });
      continue;
    }
    if (typeof provider !== 'string') continue;
    if (!known.includes(provider)) {
      problems.push({ path: `${section}.${name}.provider`, message: unknownProvider(provider, known) });
      continue;
    }
    for (const key of REQUIRED_PROVIDER_KEYS[section][provider] ?? []) {
      if (entry[key] === undefined || entry[key] === '') {
        problems.push({ path: `${section}.${name}.${key}`, message: `is required for provider "${provider}"` });
      }
    }
  }
}

function unknownProvider(provider: string, known: readonly string[]): string {
  const hint = suggestKey(provider, known);
  const mean = hint ? ` Did you mean "${hint}"?` : '';
  return `unknown provider "${provider}"; known: ${known.join(', ')} (adapter packages can register more).${mean}`;
}

function undefinedBroker(name: string, defined: readonly string[]): string {
  return `names broker "${name}", which is not defined; add a [brokers.${name}] table`
    + ` (defined: ${defined.length ? defined.join(', ') : 'none'})`;
}

function unknownKeyWarning(path: string, key: string, known: readonly string[]): string {
  const hint = suggestKey(key, known);
  return `unknown key \`${path}\` is ignored${hint ? `; did you mean \`${hint}\`?` : ''}`;
}

function rangeText(spec: { min?: number; max?: number }): string {
  if (spec.min !== undefined && spec.max !== undefined) return ` between ${spec.min} and ${spec.max}`;
  if (spec.min !== undefined) return ` ≥ ${spec.min}`;
  if (spec.max !== undefined) return ` ≤ ${spec.max}`;
  return '';
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (isPlainObject(value)) return 'a table';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
