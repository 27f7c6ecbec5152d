/**
 * Each process manager's open instances and waiting timeouts, read from the stores (so true for
 * whatever server ran it). Instances: the manager's transition streams are read in order from its
 * category and an instance is open while its last transition is not the completing one; a manager
 * with more transitions than the bound is reported without a count (`instances: null`) rather
 * than a wrong one. Timeouts: the `scheduled` outbox rows whose partition key is one of the
 * manager's timeout keys, and of those, the ones already due (the outbox processor has not sent
 * them yet).
 */
import type { DatabaseProvider, Domain, ProcessManagerTransition, ReaderCursor } from '@protean-ts/core';
import type { ProcessManagerReport } from './system-status.js';

const PAGE = 1000;

type OutboxRow = Awaited<ReturnType<DatabaseProvider['outbox']['list']>>[number];

/** Scheduled outbox rows read per status call; timeouts beyond it are not counted (`timeoutsCapped`). */
export const SCHEDULED_READ_LIMIT = 100_000;

export async function collectProcessManagers(domain: Domain, maxTransitions: number, problem: (err: unknown) => string): Promise<ProcessManagerReport[]> {
  const records = domain.registry.recordsOf('processManager');
  if (records.length === 0) return [];
  const database = domain.config.event_store.database;
  let scheduled: Promise<OutboxRow[]> | undefined;
  const scheduledRows = () => (scheduled ??= domain.providers.get(database)!.outbox.list({ status: 'scheduled', limit: SCHEDULED_READ_LIMIT }));
  return Promise.all(
    records.map(async (record): Promise<ProcessManagerReport> => {
      const category = record.options.stateCategory;
      const base = { processManager: record.name, category };
      try {
        const provider = domain.providers.get(database);
        if (!provider) throw new Error(`event_store.database "${database}" has no [databases.${database}] in domain.toml`);
        const [instances, rows] = await Promise.all([countInstances(domain, category, maxTransitions), scheduledRows()]);
        const prefix = `${category}-`;
        const timeouts = rows.filter((row) => row.partitionKey.startsWith(prefix) && row.partitionKey.includes('/timeout/'));
        const now = Date.now();
        return {
          ...base,
          ...instances,
          dueTimeouts: timeouts.length,
          pastDueTimeouts: timeouts.filter((row) => row.deliverAt != null && row.deliverAt.getTime() <= now).length,
          timeoutsCapped: rows.length === SCHEDULED_READ_LIMIT,
        };
      } catch (err) {
        return {
          ...base,
          instances: null,
          ended: null,
          transitionsCapped: false,
          dueTimeouts: 0,
          pastDueTimeouts: 0,
          timeoutsCapped: false,
          error: problem(err),
        };
      }
    }),
  );
}

async function countInstances(domain: Domain, category: string, max: number): Promise<Pick<ProcessManagerReport, 'instances' | 'ended' | 'transitionsCapped'>> {
  const store = domain.providers.get(domain.config.event_store.database)!.eventStore;
  const completed = new Map<string, boolean>();
  let cursor: ReaderCursor = { transactionId: 0, globalPosition: 0 };
  let read = 0;
  while (read < max) {
    const size = Math.min(PAGE, max - read);
    const page = await store.readCategory(category, { after: cursor, limit: size });
    for (const event of page.events) completed.set(event.streamName, (event.data as unknown as ProcessManagerTransition).completed === true);
    read += page.events.length;
    cursor = page.cursor;
    if (page.events.length < size) {
      const ended = [...completed.values()].filter(Boolean).length;
      return { instances: completed.size - ended, ended, transitionsCapped: false };
    }
  }
  return { instances: null, ended: null, transitionsCapped: true };
}
