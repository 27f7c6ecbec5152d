/**
 * Loading one aggregate of many events: replaying its whole stream (no snapshot; the bench's
 * `snapshot_threshold` is above anything a load replays, so no load writes one) against starting
 * from a snapshot at its head (written once with `writeSnapshot`). Two accounts of the same
 * events, one of each kind; loads alternate between them so background load hits both alike.
 */
import type { EventSourcedRepository, EventStore } from '@protean-ts/core';
import { BenchAccount, benchDomain } from './bench-account.js';

export interface LoadTimes {
  replayMs: number[];
  snapshotMs: number[];
}

/** Two accounts of `events` events each (one commit each); the second gets a snapshot at its head. */
export async function prepareLoadAccounts(repo: EventSourcedRepository<BenchAccount>, events: number): Promise<{ replayed: string; snapshotted: string }> {
  const [replayed, snapshotted] = [BenchAccount.withEvents(events), BenchAccount.withEvents(events)];
  await benchDomain.uow(async () => {
    await repo.add(replayed);
    await repo.add(snapshotted);
  });
  const written = await repo.writeSnapshot(snapshotted.id);
  if (written?.version !== events - 1 || !written.written) throw new Error(`expected a snapshot at version ${events - 1}, got ${JSON.stringify(written)}`);
  return { replayed: replayed.id, snapshotted: snapshotted.id };
}

/** `loads` timed loads of each account, alternating; each load is checked for the state the events make. */
export async function timeLoads(
  repo: EventSourcedRepository<BenchAccount>,
  ids: { replayed: string; snapshotted: string },
  events: number,
  loads: number,
): Promise<LoadTimes> {
  const times: LoadTimes = { replayMs: [], snapshotMs: [] };
  const timed = async (id: string): Promise<number> => {
    const begin = performance.now();
    const account = await repo.get(id);
    const ms = performance.now() - begin;
    const balance = (events - 1) * 10;
    if (account._version !== events - 1 || account.balance !== balance) {
      throw new Error(`account ${id} loaded at version ${account._version} with balance ${account.balance}, expected ${events - 1} and ${balance}`);
    }
    return ms;
  };
  for (let i = 0; i < loads; i++) {
    times.replayMs.push(await timed(ids.replayed));
    times.snapshotMs.push(await timed(ids.snapshotted));
  }
  return times;
}

/** The replayed account must still have no snapshot: otherwise its loads did not replay. */
export async function assertNoSnapshot(store: EventStore, streamCategory: string, id: string): Promise<void> {
  if (await store.latestSnapshot(`${streamCategory}-${id}`))
    throw new Error(`a load wrote a snapshot of ${id}: snapshot_threshold is not above the events a load replays`);
}
