/**
 * Event-store subscriptions in one process on the memory provider: handlers read their category
 * from the event store, once per event and in each stream's order, pass over the types they do
 * not handle, dead-letter what keeps failing, resume from their saved cursor, and hand the
 * lease over between engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommandHandler,
  BaseEvent,
  BaseEventHandler,
  Domain,
  DomainModelError,
  field,
  handle,
  type ConfigOverrides,
  type MemoryProvider,
} from '@protean-ts/core';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { ledgerMemoryConfig, makeLedger, newLedgerProbe, type LedgerProbe } from './support/ledger-fixture.js';

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('event-store subscriptions (memory)', () => {
  let probe: LedgerProbe;
  let logs: ReturnType<typeof captureLogs>;
  const engines: Engine[] = [];

  beforeEach(() => {
    probe = newLedgerProbe();
    logs = captureLogs();
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    logs.restore();
  });

  async function start(config: ConfigOverrides = ledgerMemoryConfig()) {
    const ledger = makeLedger('Books', config, probe);
    await ledger.domain.init();
    const engine = new Engine(ledger.domain, { health: false });
    engines.push(engine);
    return { ...ledger, engine };
  }

  it("delivers every event of the category once, in each stream's order, with events of many streams interleaved", async () => {
    const { post, tallies, engine } = await start();
    const ids = await Promise.all(Array.from({ length: 5 }, () => post(null, 3, 1, 4)));
    await engine.start();
    const more = await post(ids[0]!, 2);
    await eventually(async () => expect([...(await tallies()).values()].flat()).toHaveLength(5 * 8 + 2));
    const seen = await tallies();
    for (const id of ids) expect(seen.get(id)).toEqual(upTo(id === more ? 10 : 8));
    expect(engine.subscriptionStatuses()[0]).toMatchObject({ kind: 'event_store', stream: 'books::ledger', state: 'running', handled: 42, deadLettered: 0 });
  });

  it("passes over the types the handler does not handle, in their stream's turn", async () => {
    const { post, note, tallies, engine } = await start();
    const id = await post(null, 2);
    await note(id);
    await post(id, 2);
    await engine.start();
    await eventually(async () => expect((await tallies()).get(id)).toEqual(upTo(4)));
    expect(engine.subscriptionStatuses()[0]).toMatchObject({ handled: 4, skipped: 1 });
  });

  it('retries a failing event, dead-letters it after max_retries, and goes on with its stream', async () => {
    probe.onPosted = (n) => {
      if (n === 2) throw new Error('posting 2 fails (test)');
    };
    const { post, tallies, engine, domain } = await start();
    const id = await post(null, 3);
    await engine.start();
    await eventually(async () => expect((await tallies()).get(id)).toEqual([1, 3]));
    expect(probe.runs.filter((n) => n === 2)).toHaveLength(2);
    const store = (domain.providers.get('default') as MemoryProvider).eventStore;
    const [letter] = await store.subscriptions.deadLetters('Tallies', 10);
    expect(letter).toMatchObject({ subscription: 'Tallies', streamName: `books::ledger-${id}`, position: 1, type: 'Books.Posted.v1' });
    expect(letter!.error).toContain('posting 2 fails (test)');
    expect(logs.records.some((r) => r.msg === 'event moved to the dead letters of its event-store subscription')).toBe(true);
  });

  it('saves its cursor as events finish, and releases its lease when it stops', async () => {
    const { post, tallies, engine, domain } = await start();
    const id = await post(null, 4);
    await engine.start();
    await eventually(async () => expect((await tallies()).get(id)).toEqual(upTo(4)));
    const store = (domain.providers.get('default') as MemoryProvider).eventStore;
    await eventually(async () => expect((await store.subscriptions.states())[0]?.cursor.globalPosition).toBe(4));
    expect((await store.subscriptions.states())[0]).toMatchObject({ subscription: 'Tallies', owner: engine.consumer });
    await engine.stop();
    expect((await store.subscriptions.states())[0]).toMatchObject({ subscription: 'Tallies', owner: null, leaseExpiresAt: null });
  });

  it('a [server.flow_control] table naming an event-store subscription stops the start, saying it has no flow control yet (not that it is no subscription)', async () => {
    const { engine } = await start(
      ledgerMemoryConfig({ server: { flow_control: { Tallies: { circuit_failure_threshold: 2 }, Talies: { debounce_ms: 10 } } } }),
    );
    const error = await engine.start().catch((e: unknown) => e);
    expect((error as Error).name).toBe('UnknownFlowSubscriptionError');
    expect((error as Error).message).toContain('names "Talies", which is no subscription of this domain');
    expect((error as Error).message).toContain(
      'it also names "Tallies", an event-store subscription: flow control applies to stream and broker subscriptions only (event-store subscriptions do not have it yet); remove the table',
    );
  });

  describe('refusals', () => {
    function shop(subscriptionType?: 'event_store') {
      const domain = new Domain('Stores', { config: ledgerMemoryConfig({ server: { default_subscription_type: 'event_store' } }) });
      @domain.aggregate()
      class Order extends BaseAggregate {
        @field.string() customer?: string;
      }
      @domain.event({ partOf: Order })
      class Placed extends BaseEvent {
        @field.string() customer?: string;
      }
      @domain.eventHandler({ partOf: Order, ...(subscriptionType ? { subscriptionType } : {}) })
      class Receipts extends BaseEventHandler {
        @handle(Placed) onPlaced(): void {}
      }
      void Receipts;
      return domain;
    }

    it('domain.init refuses a handler declared to read the event store for a category no event-sourced aggregate writes', async () => {
      const error = await shop('event_store')
        .init()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainModelError);
      expect(String((error as Error).message)).toContain(
        `Receipts (event handler): subscriptionType 'event_store', but no event-sourced aggregate writes its category "stores::order"`,
      );
    });

    it('the server refuses to start when default_subscription_type = "event_store" would leave such a handler without events', async () => {
      const domain = shop();
      await domain.init();
      const engine = new Engine(domain, { health: false });
      await expect(engine.start()).rejects.toThrow(
        /Receipts would read "stores::order" from the event store .* no event-sourced aggregate writes that category there/,
      );
      await engine.stop();
    });

    it('a command handler cannot be given subscriptionType event_store', () => {
      const domain = new Domain('Commands');
      @domain.aggregate()
      class Order extends BaseAggregate {}
      expect(() => domain.commandHandler({ partOf: Order, subscriptionType: 'event_store' })(class Orders extends BaseCommandHandler {})).toThrow(
        /a command handler cannot read the event store/,
      );
    });
  });
});
