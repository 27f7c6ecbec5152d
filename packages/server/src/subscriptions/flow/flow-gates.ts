/**
 * One FlowGate per subscription and process, built from its `[server.flow_control."<name>"]`
 * table (defaults from FLOW_CONTROL_DEFAULTS), shared by the subscription's partition loops; none
 * for a subscription without that table. The shared limits live in the `[inbox] database`.
 */
import { FLOW_CONTROL_DEFAULTS, type Domain, type FlowControlSettings, type Logger } from '@protean-ts/core';
import { PostgresProvider } from '@protean-ts/mikro-orm';
import { FlowLimitsNeedPostgresError } from '../../errors/flow-limits-need-postgres.error.js';
import { UnknownFlowSubscriptionError } from '../../errors/unknown-flow-subscription.error.js';
import { CircuitBreaker, type CircuitStatus } from './circuit-breaker.js';
import { ConcurrencyCap } from './concurrency-cap.js';
import { Debouncer } from './debouncer.js';
import { FlowGate } from './flow-gate.js';
import { PostgresFlowLimits } from './postgres-flow-limits.js';
import { RateLimiter } from './rate-limiter.js';

const gates = new WeakMap<Domain, Map<string, FlowGate>>();
const limitsOf = new WeakMap<PostgresProvider, PostgresFlowLimits>();

/** The subscription's settings with every default filled, or null when it has no flow control table. */
export function flowSettingsOf(domain: Domain, subscription: string): FlowControlSettings | null {
  const table = domain.config.server.flow_control[subscription];
  return table ? { ...FLOW_CONTROL_DEFAULTS, ...table } : null;
}

export function flowGateFor(domain: Domain, subscription: string, consumer: string, logger: Logger): FlowGate | undefined {
  const settings = flowSettingsOf(domain, subscription);
  if (!settings) return undefined;
  let byName = gates.get(domain);
  if (!byName) gates.set(domain, (byName = new Map()));
  const existing = byName.get(subscription);
  if (existing) return existing;
  const log = logger.child({ subscription }, 'flow');
  const scope = `${domain.name}:${subscription}`;
  const shared = settings.rate_limit_per_second > 0 || settings.max_concurrency > 0 ? limitsFor(domain, subscription) : null;
  // Circuit changes are recorded where `protean-ts status` and the Observatory read them, when the inbox is on PostgreSQL.
  const recorder = shared ?? optionalLimits(domain);
  const onChange = recorder
    ? (status: CircuitStatus) =>
        void recorder
          .recordCircuit(scope, consumer, status.state, status.opened, status.lastError)
          .catch((error: unknown) => log.warn('could not record the circuit state for status; it still applies in this worker', { error }))
    : undefined;
  const gate = new FlowGate({
    circuit:
      settings.circuit_failure_threshold > 0
        ? new CircuitBreaker({
            subscription,
            threshold: settings.circuit_failure_threshold,
            openMs: settings.circuit_open_seconds * 1000,
            errors: settings.circuit_errors,
            logger: log,
            ...(onChange ? { onChange } : {}),
          })
        : null,
    rate: shared && settings.rate_limit_per_second > 0 ? new RateLimiter(shared, scope, settings.rate_limit_per_second, settings.rate_limit_burst) : null,
    cap:
      shared && settings.max_concurrency > 0
        ? new ConcurrencyCap(shared, scope, settings.max_concurrency, settings.concurrency_lease_seconds * 1000, consumer, log)
        : null,
    debouncer: settings.debounce_ms > 0 ? new Debouncer(settings.debounce_ms) : null,
    log,
  });
  byName.set(subscription, gate);
  return gate;
}

/**
 * Refuses to start when a flow control table names no stream or broker subscription of the
 * domain (a typo, or an event-store subscription, which has no flow control yet).
 */
export function checkFlowControlNames(domain: Domain, plan: readonly { group: string; source: 'stream' | 'event_store' }[]): void {
  const stream = plan.filter((entry) => entry.source === 'stream').map((entry) => entry.group);
  const unknown = Object.keys(domain.config.server.flow_control).filter((name) => !stream.includes(name));
  if (unknown.length === 0) return;
  const eventStore = unknown.filter((name) => plan.some((entry) => entry.source === 'event_store' && entry.group === name));
  throw new UnknownFlowSubscriptionError(unknown, [...new Set(stream)].sort(), eventStore);
}

/** The shared store when the inbox database is PostgreSQL, else null. */
export function optionalLimits(domain: Domain): PostgresFlowLimits | null {
  const provider = domain.providers.get(domain.config.inbox.database);
  if (!domain.config.inbox.enabled || !(provider instanceof PostgresProvider)) return null;
  let limits = limitsOf.get(provider);
  if (!limits) limitsOf.set(provider, (limits = new PostgresFlowLimits(provider)));
  return limits;
}

function limitsFor(domain: Domain, subscription: string): PostgresFlowLimits {
  const { database } = domain.config.inbox;
  const provider = domain.providers.get(database);
  if (!(provider instanceof PostgresProvider)) throw new FlowLimitsNeedPostgresError(subscription, database, provider?.kind ?? 'not configured');
  let limits = limitsOf.get(provider);
  if (!limits) limitsOf.set(provider, (limits = new PostgresFlowLimits(provider)));
  return limits;
}
