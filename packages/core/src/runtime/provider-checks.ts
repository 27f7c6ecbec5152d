/**
 * `domain.init()` refuses a model whose aggregates or projections name databases domain.toml
 * does not configure, and event-sourced aggregates whose events could not share a transaction
 * with their outbox rows, and events or commands naming a lane `[outbox.lanes]` does not list.
 * Every problem is reported at once, as one ConfigError.
 */
import type { DomainConfig } from '../config/config-types.js';
import { LIVE_LANE } from '../config/check-lanes.js';
import { ConfigError } from '../config/config-error.js';
import type { ElementRegistry } from '../registry/registry.js';
import { projectionProviderProblems } from './projection-providers.js';

export function checkAggregateProviders(registry: ElementRegistry, config: DomainConfig, file: string | null): void {
  const aggregates = registry.recordsOf('aggregate');
  // An event-sourced aggregate without a provider option lives in the event store's database.
  const named = aggregates.filter((record) => !record.options.isEventSourced || record.options.providerGiven);
  const problems = named
    .filter((record) => !(record.options.provider in config.databases))
    .map((record) => ({
      path: `databases.${record.options.provider}`,
      message: `aggregate ${record.name} uses database "${record.options.provider}", which is not configured; add a [databases.${record.options.provider}] table or change its provider option`,
    }));
  // Events and their outbox rows commit in one transaction only when both live in one database.
  const store = config.event_store.database;
  for (const record of named) {
    if (!record.options.isEventSourced || record.options.provider === store) continue;
    const fix =
      config.event_store.database_uri !== undefined
        ? `remove ${record.name}'s provider option (event-sourced aggregates live in the event store's own database, event_store.database_uri), or keep the events in "${record.options.provider}" with event_store.database instead of database_uri`
        : `set event_store.database = "${record.options.provider}", or remove ${record.name}'s provider option (or give it provider: "${store}")`;
    problems.push({
      path: 'event_store.database',
      message: `event-sourced aggregate ${record.name} names database "${record.options.provider}", but the event store is in "${store}"; its events and their outbox rows must share one transaction, so ${fix}`,
    });
  }
  problems.push(...projectionProviderProblems(registry, config));
  problems.push(...laneOptionProblems(registry, config));
  if (problems.length) throw new ConfigError(problems, file);
}

/** Events and commands whose `lane` option names a lane `[outbox.lanes] names` does not list. */
function laneOptionProblems(registry: ElementRegistry, config: DomainConfig): { path: string; message: string }[] {
  const known = [LIVE_LANE, ...config.outbox.lanes.names];
  return [...registry.recordsOf('event'), ...registry.recordsOf('command')]
    .filter((record) => record.options.lane !== undefined && !known.includes(record.options.lane))
    .map((record) => ({
      path: 'outbox.lanes.names',
      message: `${record.kind} ${record.name} has lane "${record.options.lane}", which is not a lane; add it to [outbox.lanes] names or use one of ${known.map((n) => `"${n}"`).join(', ')}`,
    }));
}
