/**
 * Cross-key rules of `[server.flow_control."<subscription>"]`: what each feature needs from the
 * rest of domain.toml. The rate limit and the concurrency cap are shared by every worker through
 * PostgreSQL (the `[inbox] database`), and debouncing finds a key's later messages by their
 * inbox positions; a circuit that opens only after a message used up its retries cannot spare it.
 */
import type { ConfigProblem } from './config-error.js';
import type { DomainConfig } from './config-types.js';
import { defaultConfig } from './defaults.js';
import { describeValue } from './mask-secrets.js';
import { isPlainObject } from './substitute-env.js';

const ERROR_CLASS_NAME = /^[A-Za-z_$][\w$]*$/;

export function checkFlowControl(config: DomainConfig, problems: ConfigProblem[], warnings: string[]): void {
  const server = config.server as Partial<DomainConfig['server']> | undefined;
  const tables = server?.flow_control;
  if (!tables || typeof tables !== 'object') return;
  // Checked before or after the defaults are merged in (validateConfig is also called on a bare table).
  const defaults = defaultConfig();
  const inbox = { ...defaults.inbox, ...(config.inbox as Partial<DomainConfig['inbox']> | undefined) };
  const inboxOn = inbox.enabled !== false;
  const database = typeof inbox.database === 'string' ? inbox.database : defaults.inbox.database;
  const databases = isPlainObject(config.databases) ? config.databases : defaults.databases;
  const inboxProvider = isPlainObject(databases[database]) ? databases[database].provider : undefined;
  const maxRetries = number(server?.stream_subscription?.max_retries) ?? defaults.server.stream_subscription.max_retries;
  for (const [name, entry] of Object.entries(tables)) {
    if (!isPlainObject(entry)) continue;
    const at = `server.flow_control.${name}`;
    const shared = (number(entry.rate_limit_per_second) ?? 0) > 0 || (number(entry.max_concurrency) ?? 0) > 0;
    if (shared && (!inboxOn || inboxProvider !== 'postgresql')) {
      problems.push({
        path: at,
        message:
          'rate_limit_per_second and max_concurrency are shared by all workers in PostgreSQL: they need [inbox] enabled with a database whose provider is "postgresql"' +
          ` (inbox.database is ${inboxOn ? `${describeValue(database)} with provider ${describeValue(inboxProvider)}` : 'disabled'}); remove them or point inbox.database at a PostgreSQL database`,
      });
    }
    if ((number(entry.debounce_ms) ?? 0) > 0 && !inboxOn) {
      problems.push({
        path: `${at}.debounce_ms`,
        message: 'debouncing finds the later messages of a key by their inbox positions: set [inbox] enabled = true, or remove debounce_ms',
      });
    }
    (Array.isArray(entry.circuit_errors) ? entry.circuit_errors : []).forEach((errorName, i) => {
      if (typeof errorName === 'string' && !ERROR_CLASS_NAME.test(errorName)) {
        problems.push({
          path: `${at}.circuit_errors[${i}]`,
          message: `must be an error class name such as "ServiceUnavailableError", got ${describeValue(errorName)}`,
        });
      }
    });
    const threshold = number(entry.circuit_failure_threshold) ?? 0;
    if (threshold > 0 && threshold > maxRetries + 1) {
      warnings.push(
        `${at}.circuit_failure_threshold: ${threshold} failures in a row are more than the ${maxRetries + 1} attempts a message has ([server.stream_subscription] max_retries = ${maxRetries}); ` +
          'one message can be dead-lettered before the circuit opens — lower the threshold or raise max_retries',
      );
    }
  }
}

/** The value when it is a number; invalid values were reported by the schema walk already. */
function number(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
