/**
 * Before the Engine starts anything, every database and broker must answer: a server that
 * starts against a dead dependency would only log errors; failing with a clear message (and,
 * under the supervisor, restarting with back-off) is easier to act on.
 */
import { maskUri, type Domain } from '@protean-ts/core';

export class InfrastructureUnavailableError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`The server cannot start; not reachable:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'InfrastructureUnavailableError';
  }
}

export async function checkInfrastructure(domain: Domain): Promise<void> {
  const { config } = domain;
  const problems: string[] = [];
  await Promise.all([
    ...[...domain.providers].map(async ([name, provider]) => {
      const ok = await provider.ping().catch(() => false);
      if (!ok) {
        const uri = config.databases[name]?.database_uri;
        problems.push(`[databases.${name}] (${provider.kind}${uri ? ` at ${maskUri(uri)}` : ''}) does not answer; start it or fix database_uri`);
      }
    }),
    ...[...domain.brokers].map(async ([name, broker]) => {
      if (!(await broker.ping())) {
        const uri = config.brokers[name]?.uri;
        problems.push(`[brokers.${name}] (${broker.provider}${uri ? ` at ${maskUri(uri)}` : ''}) does not answer; start it or fix uri`);
      }
    }),
  ]);
  if (problems.length) throw new InfrastructureUnavailableError(problems.sort());
}
