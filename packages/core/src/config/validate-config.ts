/**
 * Checks a merged configuration against CONFIG_SCHEMA, the keys each provider declares, and the
 * cross-key rules, collecting every problem (errors) and every unknown key (warnings with a
 * "did you mean" suggestion). Values that were exactly one `${VAR}` placeholder are coerced to
 * the number or boolean their key expects, since environment variables are always strings.
 * Only own keys are ever looked up: a key named `__proto__` or `toString` is a key like any other.
 */
import { checkFlowControl } from './check-flow-control.js';
import { checkLanes } from './check-lanes.js';
import type { ConfigProblem } from './config-error.js';
import type { DomainConfig } from './config-types.js';
import { CONFIG_SCHEMA, CONNECTION_KEYS, type KeySpec, type ProviderSection } from './config-schema.js';
import { addDedicatedEventStoreDatabase, checkEventStore } from './event-store-config.js';
import { uriProblem } from './check-uri.js';
import { isHost } from './is-host.js';
import { providerSettings, type KnownProviders, type ProviderSettingsSpec } from './known-providers.js';
import { describeValue } from './mask-secrets.js';
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
  /**
   * What the user wrote (file, environment table, overrides) before defaults were merged in:
   * a `[databases.default]` with a `database_uri` but no `provider` of its own is an error,
   * though the defaults supply `provider = "memory"`.
   */
  explicit?: unknown;
}

type TableSpec = KeySpec & { kind: 'table' };

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
        // User-chosen names: no prototype, so `[databases.constructor]` is a name, and an
        // undefined name never finds an inherited property.
        const out: Record<string, unknown> = Object.create(null);
        for (const [name, entry] of Object.entries(value)) out[name] = check(spec.entry, entry, `${at}.${name}`);
        return out;
      }
      case 'refused':
        problems.push({ path: at, message: `is not supported: ${spec.reason}` });
        return undefined;
      case 'string':
        if (typeof value !== 'string') return fail(at, 'must be a string', value);
        return spec.format && !spec.format.pattern.test(value) ? fail(at, `must be ${spec.format.expected}`, value) : value;
      case 'host':
        if (typeof value === 'string' && isHost(value)) return value;
        return fail(at, 'must be an IP address (127.0.0.1, 0.0.0.0, ::1) or a hostname (localhost), without scheme or port', value);
      case 'uri': {
        if (typeof value !== 'string') return fail(at, 'must be a string', value);
        // Empty: the provider's `required` check (or the event store's) says what to set.
        const problem = value === '' ? undefined : uriProblem(value, spec);
        return problem ? fail(at, problem, value) : value;
      }
      case 'path':
        if (typeof value !== 'string') return fail(at, 'must be a string', value);
        // An empty path resolves to the file's own folder; a NUL ends it early. Neither names a file.
        if (value.trim() === '' || value.includes('\u0000')) return fail(at, `must be a path relative to this file, e.g. ${at} = "${spec.example}"`, value);
        return value;
      case 'boolean': {
        const v = coerce(at, value, 'boolean');
        return typeof v === 'boolean' ? v : fail(at, 'must be true or false', value);
      }
      case 'enum':
        if (typeof value === 'string' && spec.values.includes(value)) return value;
        if (typeof value === 'string' && spec.refused && Object.hasOwn(spec.refused, value)) {
          problems.push({ path: at, message: `"${value}" is not supported: ${spec.refused[value]}` });
          return value;
        }
        return fail(at, `must be one of ${spec.values.map((v) => `"${v}"`).join(', ')}`, value);
      case 'stringList':
        if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
        return fail(at, 'must be a list of strings, e.g. ["a", "b"]', value);
      case 'integer':
      case 'number': {
        const v = coerce(at, value, 'number');
        const wanted = spec.kind === 'integer' ? 'an integer' : 'a number';
        const ok = typeof v === 'number' && (spec.kind === 'number' ? Number.isFinite(v) : Number.isSafeInteger(v));
        if (!ok || v < spec.min || v > spec.max) return fail(at, `must be ${wanted} between ${spec.min} and ${spec.max}`, value);
        return v;
      }
    }
  };

  const checkTable = (spec: TableSpec, value: unknown, at: string): unknown => {
    if (!isPlainObject(value)) return fail(at, 'must be a table', value);
    const provider = spec.providerKeys ? providerOf(spec.providerKeys, value) : null;
    const keys: Record<string, KeySpec> = Object.assign(Object.create(null), spec.keys, provider?.declared?.keys);
    const known = Object.keys(keys);
    const out: Record<string, unknown> = Object.create(null);
    const unchecked: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      const path = at ? `${at}.${key}` : key;
      if (Object.hasOwn(keys, key)) {
        const checked = check(keys[key]!, child, path);
        if (checked !== undefined) out[key] = checked;
      } else if (provider && !provider.declared) {
        // A provider whose keys are not known cannot have them checked: pass them on, and say so.
        out[key] = child;
        unchecked.push(key);
      } else {
        const owner = provider?.declared ? ` for provider "${provider.name}"` : '';
        warnings.push(unknownKeyWarning(path, key, known, owner));
      }
    }
    if (provider?.known && unchecked.length) {
      warnings.push(
        `${at}: provider "${provider.name}" has not declared its keys (is its adapter package installed?), ` +
          `so ${unchecked.map((k) => `\`${k}\``).join(', ')} ${unchecked.length === 1 ? 'is' : 'are'} passed on unchecked`,
      );
    }
    // An ordinary object again (spreading copies a `__proto__` key as an own key, not a prototype).
    return { ...out };
  };

  /** The table's provider when it is a known name; `declared` undefined when it declared no keys. */
  const providerOf = (section: ProviderSection, table: Record<string, unknown>) => {
    const name = Object.hasOwn(table, 'provider') ? table.provider : undefined;
    if (typeof name !== 'string') return null;
    const known = options.providers[section].includes(name);
    // An unknown provider is reported by checkProviders; its other keys are not warned about as well.
    return { name, known, declared: known ? providerSettings(options.providers, section, name) : undefined };
  };

  const coerce = (at: string, value: unknown, to: 'number' | 'boolean'): unknown => {
    if (typeof value !== 'string' || !coercible.has(at)) return value;
    if (to === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
    const n = value.trim() === '' ? NaN : Number(value);
    return Number.isNaN(n) ? value : n;
  };

  const fail = (at: string, message: string, got: unknown): unknown => {
    problems.push({ path: at, message: `${message} (got ${describeValue(got)})` });
    return got;
  };

  const config = checkTable(CONFIG_SCHEMA, input, '') as DomainConfig;
  if (isPlainObject(config)) checkCrossKeys(config, options, problems, warnings);
  return { config, problems, warnings };
}

function checkCrossKeys(config: DomainConfig, options: ValidateOptions, problems: ConfigProblem[], warnings: string[]) {
  const explicit = isPlainObject(options.explicit) ? options.explicit : {};
  // First: the event store's own database becomes a [databases.*] entry the checks below see.
  const storeSettled = addDedicatedEventStoreDatabase(config, explicit, problems);
  checkProviders('databases', config.databases, explicit.databases, options.providers, problems);
  checkProviders('brokers', config.brokers, explicit.brokers, options.providers, problems);

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
  if (databases && storeSettled) checkEventStore(config, databases, isPlainObject(explicit.event_store) ? explicit.event_store : {}, problems);
  checkSubscriptionType(config, problems);
  checkMetricsPath(config, problems);
  checkFlowControl(config, problems, warnings);
  checkLanes(config, problems);
  const retry = outbox && isPlainObject(outbox.retry) ? outbox.retry : undefined;
  if (
    retry &&
    typeof retry.base_delay_seconds === 'number' &&
    typeof retry.max_backoff_seconds === 'number' &&
    retry.max_backoff_seconds < retry.base_delay_seconds
  ) {
    problems.push({
      path: 'outbox.retry.max_backoff_seconds',
      message: `must be at least outbox.retry.base_delay_seconds (${retry.base_delay_seconds}), got ${retry.max_backoff_seconds}`,
    });
  }
}

/**
 * Handlers reading the event store need no outbox, and with both every event of an event-sourced
 * aggregate would also be relayed to broker streams nobody reads by default: the two are a
 * deliberate choice, so `default_subscription_type = "event_store"` asks for the outbox off.
 * (One handler with `subscriptionType: 'event_store'` beside stream handlers is fine.)
 */
/** The health server's own paths, which a metrics path must not shadow. */
const HEALTH_PATHS = ['/livez', '/readyz', '/healthz'];

function checkMetricsPath(config: DomainConfig, problems: ConfigProblem[]): void {
  const path = (config.server as { health?: { metrics_path?: unknown } } | undefined)?.health?.metrics_path;
  if (typeof path !== 'string') return;
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(path)) {
    problems.push({
      path: 'server.health.metrics_path',
      message: `must be a URL path starting with "/" (letters, digits, ".", "_", "~", "-", "/"), e.g. "/metrics" (got "${path}")`,
    });
  } else if (HEALTH_PATHS.includes(path)) {
    problems.push({
      path: 'server.health.metrics_path',
      message: `"${path}" is a health endpoint of its own (${HEALTH_PATHS.join(', ')}); choose another path, e.g. "/metrics"`,
    });
  }
}

function checkSubscriptionType(config: DomainConfig, problems: ConfigProblem[]): void {
  const server = isPlainObject(config.server) ? config.server : undefined;
  if (server?.default_subscription_type !== 'event_store' || (config.enable_outbox as unknown) === false) return;
  problems.push({
    path: 'server.default_subscription_type',
    message:
      'is "event_store", but enable_outbox is true (its default): handlers then read the event store, and the outbox would relay the same events to broker streams as well. ' +
      'Set enable_outbox = false, or keep default_subscription_type = "stream" and give single handlers subscriptionType: \'event_store\'',
  });
}

function checkProviders(section: ProviderSection, tables: unknown, explicitTables: unknown, providers: KnownProviders, problems: ConfigProblem[]) {
  if (!isPlainObject(tables)) return;
  const known = providers[section];
  for (const [name, entry] of Object.entries(tables)) {
    if (!isPlainObject(entry)) continue;
    const at = `${section}.${name}`;
    const provider = Object.hasOwn(entry, 'provider') ? entry.provider : undefined;
    if (provider === undefined) {
      problems.push({ path: `${at}.provider`, message: `is required (one of ${known.join(', ')})` });
      continue;
    }
    const written = isPlainObject(explicitTables) && Object.hasOwn(explicitTables, name) ? explicitTables[name] : undefined;
    const connection =
      isPlainObject(written) && !Object.hasOwn(written, 'provider') ? CONNECTION_KEYS[section].find((key) => Object.hasOwn(written, key)) : undefined;
    if (connection) {
      problems.push({
        path: `${at}.provider`,
        message:
          `is missing, but [${at}] sets ${connection}: without a provider of its own it would run on the default "${provider}" ` +
          `and ignore ${connection}. Add provider = "…" (one of ${known.join(', ')}); check the spelling of \`provider\``,
      });
      continue;
    }
    if (typeof provider !== 'string') continue;
    if (!known.includes(provider)) {
      problems.push({ path: `${at}.provider`, message: unknownProvider(provider, known) });
      continue;
    }
    const declared: ProviderSettingsSpec | undefined = providerSettings(providers, section, provider);
    for (const key of declared?.required ?? []) {
      if (!Object.hasOwn(entry, key) || entry[key] === '') {
        problems.push({ path: `${at}.${key}`, message: `is required for provider "${provider}"` });
      }
    }
    for (const key of declared?.unused ?? []) {
      if (Object.hasOwn(entry, key) && entry[key] !== undefined) {
        problems.push({ path: `${at}.${key}`, message: `has no effect with provider "${provider}"; remove it, or set the provider that uses it` });
      }
    }
    for (const { key, problem } of declared?.rules?.(entry) ?? []) problems.push({ path: `${at}.${key}`, message: problem });
  }
}

function unknownProvider(provider: string, known: readonly string[]): string {
  const hint = suggestKey(provider, known);
  const mean = hint ? ` Did you mean "${hint}"?` : '';
  return `unknown provider "${provider}"; known: ${known.join(', ')} (adapter packages can register more).${mean}`;
}

function undefinedBroker(name: string, defined: readonly string[]): string {
  return `names broker "${name}", which is not defined; add a [brokers.${name}] table` + ` (defined: ${defined.length ? defined.join(', ') : 'none'})`;
}

function unknownKeyWarning(path: string, key: string, known: readonly string[], owner: string): string {
  const hint = suggestKey(key, known);
  return `unknown key \`${path}\`${owner} is ignored${hint ? `; did you mean \`${hint}\`?` : ''}`;
}
