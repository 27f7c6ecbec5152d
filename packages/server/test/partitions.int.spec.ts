/**
 * Key affinity on PostgreSQL and Redis (`outbox.partitions` > 1): two engines share a stream's
 * partitions through leases, each key's messages are handled by one of them only, in order,
 * once, and without waiting on the other; when one stops, its partitions move to the other and
 * nothing is lost or handled twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partitionOf, partitionStreams } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import type { SubscriptionStatus } from '../src/subscriptions/subscription-status.js';
import { eventually } from './support/eventually.js';
import { makeNotes, newProbe, notesConfig, setupTables, type NotesProbe } from './support/notes-fixture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);
const PARTITIONS = 4;

describe.skipIf(!up)('stream partitions: key affinity across engines (PostgreSQL and Redis)', () => {
  let db: TempDatabase;
  let prefix: string;
  const engines: Engine[] = [];

  beforeEach(async () => {
    db = await createTempDatabase();
    prefix = uniquePrefix('partitions');
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await db.drop();
  });

  /** One worker: its own domain instance (as in its own process), its own probe recording `noteId:n`. */
  async function worker(workerId: number, broker: Record<string, unknown> = {}) {
    const probe: NotesProbe & { seen: string[] } = { ...newProbe(), seen: [] };
    probe.onNoted = (n, noteId) => void probe.seen.push(`${noteId}:${n}`);
    const config = notesConfig(db, { uri: REDIS_URI, stream_prefix: prefix, ...broker }, { outbox: { partitions: PARTITIONS } });
    const app = makeNotes('Notes', { ...config, server: { ...(config.server as object), partition_lease_seconds: 3 } }, probe);
    await setupTables(app.domain);
    const engine = new Engine(app.domain, { health: false, workerId });
    engines.push(engine);
    await engine.start();
    return { app, engine, probe };
  }

  const effects = (engine: Engine): SubscriptionStatus => engine.subscriptionStatuses().find((s) => s.name === 'Effects')!;
  const readBy = (engine: Engine) => effects(engine).partitions?.read ?? [];

  it('splits the partitions between two engines, sends each key to one of them, in order, once, with no waits; a stopping engine hands its partitions over', async () => {
    const one = await worker(1);
    const two = await worker(2);
    // Shares settle: each engine reads two partitions, together all four.
    await eventually(() => readBy(one.engine).length === 2 && readBy(two.engine).length === 2, 30_000);
    expect([...readBy(one.engine), ...readBy(two.engine)].sort()).toEqual([0, 1, 2, 3]);

    const notes: { id: string }[] = [];
    for (let i = 0; i < 24; i += 1) notes.push(await one.app.commit(null, [1, 2, 3]));
    await eventually(() => one.probe.seen.length + two.probe.seen.length === 72, 20_000);

    const stream = one.app.stream;
    for (const note of notes) {
      const key = `${stream}-${note.id}`;
      const here = one.probe.seen.filter((s) => s.startsWith(`${note.id}:`));
      const there = two.probe.seen.filter((s) => s.startsWith(`${note.id}:`));
      // All of a key in one engine, the one reading its partition, in sequence order.
      const owner = readBy(one.engine).includes(partitionOf(key, PARTITIONS)) ? here : there;
      expect(owner).toEqual([`${note.id}:1`, `${note.id}:2`, `${note.id}:3`]);
      expect(here.length + there.length).toBe(3);
    }
    expect(effects(one.engine).waits + effects(two.engine).waits).toBe(0);
    // The relay wrote each key to its partition's stream, and the group drained on every one (acks
    // follow the handler's commit, so the last may still be on its way when the effects are in).
    const broker = one.app.domain.brokers.get('default')!;
    for (const partition of partitionStreams(stream, PARTITIONS)) {
      await eventually(async () => {
        expect(await broker.groupStatus(partition, 'Effects')).toMatchObject({ pending: 0, lag: 0, exists: true });
        return true;
      }, 10_000);
    }

    // Engine two stops: it releases its partitions, engine one takes all four within seconds.
    await two.engine.stop();
    await eventually(() => readBy(one.engine).length === PARTITIONS, 30_000);
    const later: { id: string }[] = [];
    for (let i = 0; i < 8; i += 1) later.push(await one.app.commit(null, [1, 2]));
    await eventually(() => one.probe.seen.length + two.probe.seen.length === 72 + 16, 20_000);
    for (const note of later) expect(one.probe.seen.filter((s) => s.startsWith(`${note.id}:`))).toEqual([`${note.id}:1`, `${note.id}:2`]);
    expect(effects(one.engine).duplicates).toBe(0);
  }, 90_000);

  it("takes over a dead engine's partitions once its lease runs out, and handles what it left unfinished once", async () => {
    const one = await worker(1, { claim_idle_ms: 1_000 });
    const two = await worker(2, { claim_idle_ms: 1_000 });
    await eventually(() => readBy(one.engine).length === 2 && readBy(two.engine).length === 2, 30_000);
    // Engine two's handler is slow from now on: it will die with messages read and not handled.
    two.probe.onNoted = async (n, noteId) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      two.probe.seen.push(`${noteId}:${n}`);
    };
    const owned = readBy(two.engine);
    const notes: { id: string }[] = [];
    for (let i = 0; i < 16; i += 1) notes.push(await one.app.commit(null, [1, 2]));
    const stream = one.app.stream;
    const keysOfTwo = notes.filter((note) => owned.includes(partitionOf(`${stream}-${note.id}`, PARTITIONS)));
    expect(keysOfTwo.length).toBeGreaterThan(0);
    await eventually(() => two.probe.runs.length > 0);
    // It dies: no more lease renewals, no more reads, acks or liveness reports.
    const ownership = (two.engine as unknown as { ownership: { abort: AbortController } }).ownership;
    ownership.abort.abort();
    await two.app.domain.brokers.get('default')!.close();
    const handled = (note: { id: string }) => [...two.probe.seen, ...one.probe.seen].filter((s) => s.startsWith(`${note.id}:`));
    await eventually(() => readBy(one.engine).length === PARTITIONS, 30_000);
    // Engine one takes the dead engine's unacked messages over and handles each key once, in order.
    await eventually(() => notes.every((note) => handled(note).length >= 2), 30_000);
    for (const note of notes) expect(handled(note)).toEqual([`${note.id}:1`, `${note.id}:2`]);
  }, 90_000);
});
