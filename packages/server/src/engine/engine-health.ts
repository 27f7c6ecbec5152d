/**
 * The Engine's health checks: every database and broker answers a ping, every outbox
 * processor and subscription is running (not stopped, not backing off after errors).
 */
import type { Broker, DatabaseProvider } from '@protean-ts/core';
import type { OutboxProcessor } from '@protean-ts/outbox';
import { healthReport, type HealthCheck, type HealthReport } from '../health/health-report.js';
import type { Subscription } from '../subscriptions/subscription-status.js';

export interface EngineParts {
  providers: ReadonlyMap<string, DatabaseProvider>;
  brokers: ReadonlyMap<string, Broker>;
  processors: readonly OutboxProcessor[];
  subscriptions: readonly Subscription[];
}

export async function engineHealth(parts: EngineParts): Promise<HealthReport> {
  const databases = [...parts.providers].map(async ([name, provider]): Promise<HealthCheck> => {
    const ok = await provider.ping().catch(() => false);
    return { name: `database:${name}`, kind: 'database', ok, detail: ok ? provider.kind : `${provider.kind} does not answer` };
  });
  const brokers = [...parts.brokers].map(async ([name, broker]): Promise<HealthCheck> => {
    const ok = await broker.ping();
    return { name: `broker:${name}`, kind: 'broker', ok, detail: ok ? broker.provider : `${broker.provider} does not answer` };
  });
  const processors = parts.processors.map((p): HealthCheck => ({ name: `outbox:${p.name}`, kind: 'outbox', ok: p.state === 'running', detail: p.state }));
  const statuses = parts.subscriptions.map((s) => s.status());
  // A process manager has one subscription per category under one name: its checks name the stream too.
  const shared = new Set(statuses.filter((s, i) => statuses.findIndex((o) => o.name === s.name) !== i).map((s) => s.name));
  const subscriptions = statuses.map((status): HealthCheck => {
    const detail = status.lastError ? `${status.state}: ${status.lastError.split('\n')[0]}` : status.state;
    // An open circuit is a dependency of the handler being down, not this process: ready, and said so.
    const circuit = status.flow?.circuit;
    const note = circuit && circuit.state !== 'closed' ? `circuit ${circuit.state} (${circuit.lastError ?? 'failures in a row'})` : undefined;
    const name = shared.has(status.name) ? `subscription:${status.name}@${status.stream}` : `subscription:${status.name}`;
    // A standby (another worker holds an event-store subscription's lease) is healthy: it takes over when needed.
    return { name, kind: 'subscription', ok: status.state === 'running' || status.state === 'standby', detail, ...(note ? { note } : {}) };
  });
  return healthReport([...(await Promise.all([...databases, ...brokers])), ...processors, ...subscriptions]);
}
