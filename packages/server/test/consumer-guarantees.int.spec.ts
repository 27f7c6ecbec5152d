/**
 * Each consumer guarantee on its own, in one process against PostgreSQL and Redis: a lost ack's
 * redelivery is skipped, a dead letter releases its key and is handled late on replay, an
 * abandoned outbox row's successors pass the gap, permanent errors are not retried, and keys
 * run concurrently while one key's messages never overlap. The handler has no dedup or order
 * code: each test fails without the feature it names.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  PermanentError,
  POSITION_PASSED_TYPE,
  registerBroker,
  ValidationError,
  type Broker,
  type Domain,
  type BrokerSettings,
  type OutgoingMessage,
} from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { RedisBroker } from '@protean-ts/redis';
import { Engine } from '../src/engine/engine.js';
import type { SubscriptionStatus } from '../src/subscriptions/subscription-status.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeNotes, newProbe, notesConfig, setupTables, type NotesProbe, type NotesSettings } from './support/notes-fixture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

/** Redis whose acks of the Effects group are silently lost (as if the reply never came back). */
class AckLosingRedisBroker extends RedisBroker {
  override async ack(stream: string, group: string, ids: readonly string[]): Promise<number> {
    return group === 'Effects' ? 0 : super.ack(stream, group, ids);
  }
}

/** Redis that refuses, as a permanent publish error, every message of the type `Notes*.Flagged.v1`. */
class FlagRefusingRedisBroker extends RedisBroker {
  override async publish(message: OutgoingMessage): Promise<string> {
    if (isFlagged(message)) throw new Error('this broker refuses Flagged (test)');
    return super.publish(message);
  }
  override async publishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    // Fails the batch, so the outbox publishes one by one and only Flagged fails.
    if (messages.some(isFlagged)) throw new Error('this broker refuses Flagged (test)');
    return super.publishBatch(messages);
  }
}
const isFlagged = (message: OutgoingMessage) => String(message.envelope.metadata?.headers?.type ?? '').endsWith('.Flagged.v1');

/** Refuses Flagged and the outbox's position markers too: only the gap timeout can release the key. */
class MarkerRefusingRedisBroker extends FlagRefusingRedisBroker {
  override async publishBatch(messages: readonly OutgoingMessage[]): Promise<string[]> {
    if (messages.some((m) => m.envelope.metadata?.headers?.type === POSITION_PASSED_TYPE)) throw new Error('this broker refuses markers (test)');
    return super.publishBatch(messages);
  }
}

registerBroker('ack-losing-redis', (name: string, settings: BrokerSettings) => new AckLosingRedisBroker(name, settings));
registerBroker('flag-refusing-redis', (name: string, settings: BrokerSettings) => new FlagRefusingRedisBroker(name, settings));
registerBroker('marker-refusing-redis', (name: string, settings: BrokerSettings) => new MarkerRefusingRedisBroker(name, settings));

class NoteRefused extends PermanentError {}

describe.skipIf(!up)('consumer guarantees (one process, PostgreSQL and Redis)', () => {
  let db: TempDatabase;
  let prefix: string;
  let probe: NotesProbe;
  const engines: Engine[] = [];
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(async () => {
    db = await createTempDatabase();
    prefix = uniquePrefix('guarantees');
    probe = newProbe();
    logs = captureLogs();
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    logs.restore();
    await db.drop();
  });

  /** A fresh domain on this test's database and prefix, tables set up. */
  async function notes(broker: Record<string, unknown> = {}, settings: NotesSettings = {}) {
    const app = makeNotes('Notes', notesConfig(db, { uri: REDIS_URI, stream_prefix: prefix, ...broker }, settings), probe);
    await setupTables(app.domain);
    return app;
  }

  async function start(app: { domain: Domain }, options: ConstructorParameters<typeof Engine>[1] = {}): Promise<Engine> {
    const engine = new Engine(app.domain, { health: false, ...options });
    engines.push(engine);
    await engine.start();
    return engine;
  }

  const effects = (engine: Engine): SubscriptionStatus => engine.subscriptionStatuses().find((s) => s.name === 'Effects')!;
  const brokerOf = (app: { domain: Domain }): Broker => app.domain.brokers.get('default')!;

  it('takes over within seconds the messages of a consumer that stopped reporting alive, never those of one that still reports (claim_idle_ms 60 s)', async () => {
    const app = await notes({ claim_idle_ms: 60_000 });
    const other = new RedisBroker('other', { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix });
    await other.connect();
    try {
      await other.ensureGroup(app.stream, 'Effects');
      await app.commit(null, [1]);
      // The other consumer (another worker) is blocked on the group first, so Redis hands it the
      // message the engine's relay publishes; it keeps reporting alive: a slow handler.
      await other.reportAlive('slow-w9', 1_500);
      const reading = other.read(app.stream, 'Effects', 'slow-w9', { count: 10, blockMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const relay = await start(app, { workerId: 1 });
      const held = await reading;
      expect(held).toHaveLength(1);
      for (let i = 0; i < 6; i++) {
        await other.reportAlive('slow-w9', 1_500);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(probe.runs).toEqual([]);
      // It dies (no more reports): the running engine takes the message over long before claim_idle_ms.
      await eventually(() => effects(relay).handled === 1, 15_000);
      expect(probe.runs).toEqual([1]);
      expect(logs.records.some((r) => r.msg === 'took over messages of a consumer that stopped reporting alive')).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('skips a redelivered message whose ack was lost (another consumer takes it over): the effect happens once', async () => {
    // A first consumer handles the message, but its ack never reaches Redis.
    const first = await notes({ provider: 'ack-losing-redis' });
    const firstEngine = await start(first, { workerId: 1, reclaimIntervalMs: 600_000 });
    await first.commit(null, [1]);
    await eventually(() => probe.handled.length === 1);
    await eventually(async () => (await brokerOf(first).groupStatus(first.stream, 'Effects')).pending === 1);
    await firstEngine.stop();

    // Another consumer takes the unacknowledged message over and must not run the handler again.
    const second = await notes({ claim_idle_ms: 200 });
    const secondEngine = await start(second, { workerId: 2, reclaimIntervalMs: 100 });
    await eventually(() => effects(secondEngine).duplicates === 1, 15_000);
    await eventually(async () => (await brokerOf(second).groupStatus(second.stream, 'Effects')).pending === 0);
    expect(logs.records.some((r) => r.msg === 'took over messages left pending by a stopped consumer')).toBe(true);
    expect(probe.runs).toEqual([1]);
    expect(effects(secondEngine)).toMatchObject({ handled: 0, duplicates: 1 });
  });

  it("moves a dead-lettered message's key past it, so its successors are handled; a replay is then handled once, late", async () => {
    const app = await notes({}, { streamSubscription: { gap_timeout_seconds: 600 } });
    probe.onNoted = (n) => {
      if (n === 2) throw new Error('cannot take 2 yet (test)');
    };
    const engine = await start(app);
    const note = await app.commit(null, [1, 2]);
    await app.commit(note, [3, 4]);
    await eventually(() => probe.handled.length === 3, 15_000);
    expect(probe.handled).toEqual([1, 3, 4]);
    // max_retries = 1: two runs of 2, then the dead letter.
    expect(probe.runs.filter((n) => n === 2)).toHaveLength(2);
    const broker = brokerOf(app);
    await eventually(async () => (await broker.listDeadLetters(app.stream)).length === 1);
    expect(effects(engine)).toMatchObject({ deadLettered: 1, gapsPassed: 0 });

    // What `protean-ts dlq replay` does: back to the stream, where it is now handled, once.
    probe.onNoted = () => undefined;
    expect(await broker.replayDeadLetters(app.stream)).toBe(1);
    await eventually(() => effects(engine).late === 1, 15_000);
    expect(probe.handled).toEqual([1, 3, 4, 2]);
    expect(effects(engine)).toMatchObject({ handled: 4, late: 1, deadLettered: 1 });
    expect(await broker.listDeadLetters(app.stream)).toEqual([]);
  });

  it('moves the key past an abandoned outbox row at once, through the marker the outbox publishes in its place', async () => {
    const app = await notes({ provider: 'flag-refusing-redis' }, { streamSubscription: { gap_timeout_seconds: 600 }, outbox: { retry: { max_attempts: 1 } } });
    const engine = await start(app);
    const note = await app.commit(null, [1]);
    await app.commit(note, [2], [2]); // Flagged: the broker refuses it; the outbox abandons it.
    await app.commit(note, [3]);
    await eventually(() => probe.handled.length === 2, 20_000);
    expect(probe.handled).toEqual([1, 3]);
    expect(logs.records.find((r) => r.msg.startsWith('the key moves past a message the outbox abandoned'))).toMatchObject({ level: 'error', sequence: 2 });
    // The counters move after the commit and ack, a moment after the handler returned.
    await eventually(() => effects(engine).handled === 2);
    expect(effects(engine)).toMatchObject({ handled: 2, gapsPassed: 0, passedAbandoned: 1 });
  });

  it('lets the successors of an abandoned outbox row through after gap_timeout_seconds, with an ERROR "passed a gap", when no marker could be published', async () => {
    const app = await notes({ provider: 'marker-refusing-redis' }, { streamSubscription: { gap_timeout_seconds: 2 }, outbox: { retry: { max_attempts: 1 } } });
    const engine = await start(app);
    const note = await app.commit(null, [1]);
    await app.commit(note, [2], [2]); // Flagged: the broker refuses it; the outbox abandons it.
    await app.commit(note, [3]);
    await eventually(() => probe.handled.length === 2, 20_000);
    expect(probe.handled).toEqual([1, 3]);
    // The ERROR is logged with the counters, after the handler's commit: wait for those first
    // (the probe notes the handler as it runs, a moment before).
    await eventually(() => effects(engine).handled === 2);
    const passed = logs.records.find((r) => r.msg.startsWith('passed a gap'));
    expect(passed).toMatchObject({ level: 'error', sequence: 3 });
    expect(effects(engine)).toMatchObject({ handled: 2, gapsPassed: 1 });
    const [{ abandoned }] = [await app.domain.providers.get('default')!.outbox.counts()];
    expect(abandoned).toBe(1);
  });

  it('dead-letters a PermanentError or ValidationError on the first failure, and retries a plain Error max_retries times', async () => {
    const app = await notes({}, { streamSubscription: { max_retries: 2 } });
    probe.onNoted = (n) => {
      if (n === 1) throw new NoteRefused('note 1 is refused for good (test)');
      if (n === 2) throw new ValidationError({ n: ['is not acceptable (test)'] }, 'Note');
      if (n === 3) throw new Error('note 3 failed (test)');
    };
    const engine = await start(app);
    // A key each, so no message waits behind another.
    for (const n of [1, 2, 3, 4]) await app.commit(null, [n]);
    await eventually(() => effects(engine).deadLettered === 3 && probe.handled.length === 1, 15_000);
    const runsOf = (n: number) => probe.runs.filter((r) => r === n).length;
    expect([runsOf(1), runsOf(2), runsOf(3), runsOf(4)]).toEqual([1, 1, 3, 1]);
    expect(effects(engine)).toMatchObject({ retried: 2, deadLettered: 3, handled: 1 });
    const letters = await brokerOf(app).listDeadLetters(app.stream);
    expect(letters.map((l) => l.error.split('\n')[0]).sort()).toEqual([
      'Error: note 3 failed (test)',
      'NoteRefused: note 1 is refused for good (test)',
      expect.stringMatching(/^ValidationError/),
    ]);
  });

  it('runs up to concurrency keys at once in one process, never two messages of one key', async () => {
    const app = await notes({}, { streamSubscription: { concurrency: 8 }, poolSize: 12 });
    const running = new Map<string, number>();
    let now = 0;
    let most = 0;
    let mostOfOneKey = 0;
    const order = new Map<string, number[]>();
    probe.onNoted = async (n, noteId) => {
      now += 1;
      running.set(noteId, (running.get(noteId) ?? 0) + 1);
      most = Math.max(most, now);
      mostOfOneKey = Math.max(mostOfOneKey, running.get(noteId)!);
      order.set(noteId, [...(order.get(noteId) ?? []), n]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      running.set(noteId, running.get(noteId)! - 1);
      now -= 1;
    };
    // 16 keys of one message and 4 of four, all committed before the engine starts: the outbox
    // publishes one message per key per batch, so a key's next message arrives while it runs.
    for (let k = 0; k < 16; k++) await app.commit(null, [1]);
    for (let k = 0; k < 4; k++) await app.commit(null, [1, 2, 3, 4]);
    await start(app);
    await eventually(() => probe.handled.length === 32, 30_000);
    expect(most).toBeGreaterThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(8);
    expect(mostOfOneKey).toBe(1);
    expect([...order.values()].map((ns) => ns.join()).sort()).toEqual([...Array(16).fill('1'), ...Array(4).fill('1,2,3,4')].sort());
  });
});
