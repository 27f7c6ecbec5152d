import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseEvent,
  BaseProcessManager,
  configureLogging,
  Domain,
  DomainModelError,
  field,
  handle,
  InvalidDueTimeError,
  InvalidDurationError,
  isPermanentError,
  parseDuration,
  processManagerStream,
  ProcessManagerUsageError,
  type ClassRef,
  type MemoryProvider,
  type OutboxRow,
  type ProcessManagerRecord,
  type ProcessManagerTransition,
} from '../../src/index.js';
import { makeFulfilment, type Fulfil } from '../support/fulfilment-domain.js';

// event_processing explicit: a domain.toml found up the tree (the repository's, the example shop's) must not decide it.
const memory = (overrides: Record<string, unknown> = {}) => ({
  event_processing: 'sync',
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  ...overrides,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('process managers (memory)', () => {
  let f: Fulfil;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const provider = () => f.domain.providers.get('default') as MemoryProvider;
  const record = () => f.domain.registry.requireRecord(f.Fulfilment, 'processManager') as ProcessManagerRecord;
  async function transitions(orderId: string): Promise<ProcessManagerTransition[]> {
    const events = await provider().eventStore.readStream(processManagerStream(record(), orderId));
    return events.map((event) => event.data as unknown as ProcessManagerTransition);
  }
  async function placeOrder(customer = 'Ann'): Promise<string> {
    return f.domain.uow(async () => {
      const order = f.Order.create({ customer });
      order.place();
      await f.domain.repositoryFor(f.Order).add(order);
      return order.id;
    });
  }
  async function pay(orderId: string): Promise<void> {
    await f.domain.uow(async () => {
      const payment = f.Payment.create({ forOrder: orderId });
      payment.receive();
      await f.domain.repositoryFor(f.Payment).add(payment);
    });
  }
  async function note(orderId: string, text: string): Promise<void> {
    await f.domain.uow(async () => {
      const repository = f.domain.repositoryFor(f.Order);
      const order = await repository.get(orderId);
      order.note(text);
      await repository.add(order);
    });
  }

  beforeEach(() => {
    restoreLogging = configureLogging({ sink: () => {} });
  });
  afterEach(async () => {
    await f?.domain.close();
    configureLogging(restoreLogging);
  });

  describe('delivered after commit (event_processing = "sync")', () => {
    beforeEach(async () => {
      f = makeFulfilment();
      await f.domain.init({ config: memory() });
    });

    it('a start event creates the instance, keyed by its correlation value, with the correlation field set', async () => {
      const orderId = await placeOrder('Ann');
      const [started, ...rest] = await transitions(orderId);
      expect(rest).toHaveLength(0);
      expect(started).toMatchObject({
        completed: false,
        state: { orderId, customer: 'Ann', notes: [], paid: false },
        event: { type: 'Fulfil.OrderPlaced.v1' },
      });
    });

    it('a later event finds the instance through a mapped correlation and updates its state', async () => {
      const orderId = await placeOrder();
      await note(orderId, 'gift wrap');
      const all = await transitions(orderId);
      expect(all.map((t) => t.state.notes)).toEqual([[], ['gift wrap']]);
    });

    it('a later transition starts from the state this process committed, without reading the stream again', async () => {
      const store = provider().eventStore;
      const read = store.lastEvent.bind(store);
      let reads = 0;
      store.lastEvent = (...args) => ((reads += 1), read(...args));
      const orderId = await placeOrder();
      expect(reads).toBe(1); // the start: nothing kept yet
      await note(orderId, 'a');
      await note(orderId, 'b');
      expect(reads).toBe(1);
      expect((await transitions(orderId)).map((t) => t.state.notes)).toEqual([[], ['a'], ['a', 'b']]);
    });

    it('a stream another process moved on is a conflict that reruns the transition on the stored state: no update is lost', async () => {
      const orderId = await placeOrder();
      await note(orderId, 'a');
      // Another worker handles an event of this instance: the transition this process kept is stale.
      const [, last] = await transitions(orderId);
      const tx = await provider().begin();
      const stream = processManagerStream(record(), orderId);
      const elsewhere = { ...last!, state: { ...last!.state, notes: ['a', 'elsewhere'] } };
      await provider().eventStore.append(
        tx,
        stream,
        [{ messageId: crypto.randomUUID(), type: 'Fulfil.Fulfilment.Transitioned.v1', data: elsewhere as never }],
        { expectedVersion: 1 },
      );
      await tx.commit();
      await note(orderId, 'b');
      expect((await transitions(orderId)).map((t) => t.state.notes)).toEqual([[], ['a'], ['a', 'elsewhere'], ['a', 'elsewhere', 'b']]);
    });

    it('a non-start event with no instance is skipped: nothing is stored', async () => {
      const orderId = await f.domain.uow(async () => {
        const order = f.Order.create({ customer: 'Bo' });
        order.note('no process yet');
        await f.domain.repositoryFor(f.Order).add(order);
        return order.id;
      });
      expect(f.calls).toEqual([]);
      expect(await transitions(orderId)).toEqual([]);
    });

    it('markAsComplete completes it; the command it sent is in the outbox; later events are ignored', async () => {
      const orderId = await placeOrder();
      await pay(orderId);
      const all = await transitions(orderId);
      expect(all.at(-1)).toMatchObject({ completed: true, state: { paid: true } });
      const rows = await provider().outbox.list({ limit: 100 });
      const confirm = rows.find((row) => row.messageType === 'Fulfil.ConfirmOrder.v1');
      expect(confirm?.envelope.data).toMatchObject({ orderId });
      // Caused by the event the manager was handling.
      expect(confirm?.causationId).toBe(rows.find((row) => row.messageType === 'Fulfil.PaymentReceived.v1')?.messageId);
      await note(orderId, 'too late');
      expect(await transitions(orderId)).toHaveLength(all.length);
      expect(f.calls).toEqual([`placed ${orderId}`, `paid ${orderId}`]);
    });

    it('scheduleTimeout is refused by name while events are delivered in-process', async () => {
      await f.domain.close();
      f = makeFulfilment({ timeoutAfter: '15m' });
      await f.domain.init({ config: memory() });
      // The sync dispatcher logs a failing handler and keeps the commit: the instance was not stored.
      const orderId = await placeOrder();
      expect(await transitions(orderId)).toEqual([]);
      const envelope = (await provider().outbox.list({ limit: 10 }))[0]!.envelope;
      await expect(f.domain.handleMessage(envelope, { handler: f.Fulfilment })).rejects.toThrow(
        /scheduleTimeout\(\): timeouts come back through the server's subscriptions.*event_processing = "async"/,
      );
    });
  });

  describe('delivered by subscriptions (event_processing = "async"), with durable timeouts', () => {
    async function start(timeoutAfter: string | number): Promise<void> {
      f = makeFulfilment({ timeoutAfter });
      await f.domain.init({ config: memory({ event_processing: 'async' }) });
    }
    /** What the outbox processor and the manager's subscription do: promote due rows, claim, hand events to the manager. */
    async function relay(): Promise<OutboxRow[]> {
      const outbox = provider().outbox;
      await outbox.promoteDue('default', 100);
      const handled: OutboxRow[] = [];
      for (let rows = await outbox.claimBatch({ workerId: 'w', targetBroker: 'default', limit: 100, lockMs: 30000 }); rows.length;) {
        for (const row of rows) {
          if (row.envelope.metadata.domain.kind === 'EVENT') await f.domain.handleMessage(row.envelope, { handler: f.Fulfilment });
          handled.push(row);
        }
        await outbox.markPublished(
          'w',
          rows.map((row) => row.id),
        );
        rows = await outbox.claimBatch({ workerId: 'w', targetBroker: 'default', limit: 100, lockMs: 30000 });
      }
      return handled;
    }
    const scheduled = async () => provider().outbox.list({ status: 'scheduled', limit: 100 });

    it('stores the timeout with its due time under a key of its own, and does not deliver it before then', async () => {
      await start('1h');
      const before = Date.now();
      const orderId = await placeOrder();
      await relay();
      const [timeout, ...others] = await scheduled();
      expect(others).toHaveLength(0);
      expect(timeout).toMatchObject({ messageType: 'Fulfil.PaymentTimedOut.v1', streamName: 'fulfil::order', sequence: 1 });
      expect(timeout!.partitionKey.startsWith(`${processManagerStream(record(), orderId)}/timeout/`)).toBe(true);
      expect(timeout!.deliverAt!.getTime()).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(timeout!.causationId).toBe((await provider().outbox.list({ limit: 1 }))[0]!.messageId);
      expect(await relay()).toEqual([]);
      expect(f.calls).toEqual([`placed ${orderId}`]);
    });

    it('delivers the timeout once due: the manager handles it, sends its command and completes', async () => {
      await start('200ms');
      const orderId = await placeOrder();
      await relay();
      let delivered: OutboxRow[] = [];
      for (let i = 0; i < 500 && delivered.length === 0; i++) {
        delivered = await relay();
        if (delivered.length === 0) await sleep(10);
      }
      const [timeout] = delivered.filter((row) => row.messageType === 'Fulfil.PaymentTimedOut.v1');
      expect(Date.now()).toBeGreaterThanOrEqual(timeout!.deliverAt!.getTime());
      expect(f.calls).toEqual([`placed ${orderId}`, `timed out ${orderId}`]);
      expect((await transitions(orderId)).at(-1)).toMatchObject({ completed: true });
      expect(delivered.map((row) => row.messageType)).toContain('Fulfil.CancelOrder.v1');
      // Redelivered after completion (at-least-once): ignored.
      await f.domain.handleMessage(timeout!.envelope, { handler: f.Fulfilment });
      expect(f.calls).toHaveLength(2);
    });

    it('completing the process cancels its pending timeouts in the same transaction', async () => {
      await start('1h');
      const orderId = await placeOrder();
      const otherId = await placeOrder('Cy');
      await relay();
      expect(await scheduled()).toHaveLength(2);
      await pay(orderId);
      await relay();
      const left = await scheduled();
      expect(left).toHaveLength(1);
      expect(left[0]!.envelope.data).toMatchObject({ orderId: otherId });
      expect((await transitions(orderId)).at(-1)).toMatchObject({ completed: true });
    });

    it('two events of one instance handled at once: both updates survive (a version conflict reruns the loser)', async () => {
      await start('1h');
      const orderId = await placeOrder();
      await relay();
      await note(orderId, 'a');
      await note(orderId, 'b');
      const rows = (await provider().outbox.list({ status: 'pending', limit: 100 })).filter((row) => row.messageType === 'Fulfil.OrderNoted.v1');
      expect(rows).toHaveLength(2);
      await Promise.all(rows.map((row) => f.domain.handleMessage(row.envelope, { handler: f.Fulfilment })));
      expect((await transitions(orderId)).at(-1)!.state.notes).toEqual(expect.arrayContaining(['a', 'b']));
    });

    it('send with deliverAt and scheduleTimeout with at: stored with those due times; a bad one is refused by name', async () => {
      f = makeFulfilment();
      const { domain } = f;
      const due = new Date(Date.now() + 86_400_000);
      const timeoutOptions: { value: unknown } = { value: { at: due } };
      @domain.processManager({ aggregates: [f.Order] })
      class Reminders extends BaseProcessManager {
        orderId?: string;
        @handle(f.OrderPlaced, { start: true, correlate: 'orderId' })
        placed(): void {
          this.send(f.CancelOrder.create({ orderId: this.orderId! }), { deliverAt: due });
          this.scheduleTimeout(f.PaymentTimedOut.create({ orderId: this.orderId! }), timeoutOptions.value as { at: Date });
        }
      }
      await domain.init({ config: memory({ event_processing: 'async' }) });
      const orderId = await placeOrder();
      const placed = (await provider().outbox.list({ limit: 10 })).find((row) => row.messageType === 'Fulfil.OrderPlaced.v1')!;
      await domain.handleMessage(placed.envelope, { handler: Reminders });
      const waiting = await scheduled();
      expect(waiting.map((row) => [row.messageType, row.deliverAt!.getTime()]).sort()).toEqual([
        ['Fulfil.CancelOrder.v1', due.getTime()],
        ['Fulfil.PaymentTimedOut.v1', due.getTime()],
      ]);
      const command = waiting.find((row) => row.messageType === 'Fulfil.CancelOrder.v1')!;
      expect(command.partitionKey).toBe(`fulfil::order:command-${orderId}/at/${command.messageId}`);
      // A bad due time fails the handler; nothing of that run is stored.
      timeoutOptions.value = { at: 'tomorrow' };
      const second = await placeOrder();
      const placedAgain = (await provider().outbox.list({ limit: 20 })).find(
        (row) => row.messageType === 'Fulfil.OrderPlaced.v1' && row.envelope.data.orderId === second,
      )!;
      await expect(domain.handleMessage(placedAgain.envelope, { handler: Reminders })).rejects.toThrow(
        /Reminders\.scheduleTimeout\(\): at must be a valid Date, got "tomorrow"/,
      );
      timeoutOptions.value = undefined;
      await expect(domain.handleMessage(placedAgain.envelope, { handler: Reminders })).rejects.toThrow(
        /Reminders\.scheduleTimeout\(PaymentTimedOut\) needs \{ after: '15m' \}/,
      );
      timeoutOptions.value = { after: '15 minutes' };
      await expect(domain.handleMessage(placedAgain.envelope, { handler: Reminders })).rejects.toThrow(
        /Reminders\.scheduleTimeout\(\): after: "15 minutes" is not a duration/,
      );
      expect(await scheduled()).toHaveLength(2);
    });

    it('the state, the sent commands and the timeouts commit together: a handler that throws leaves none of them', async () => {
      f = makeFulfilment();
      const { domain } = f;
      @domain.processManager({ aggregates: [f.Order] })
      class Clumsy extends BaseProcessManager {
        orderId?: string;
        @handle(f.OrderPlaced, { start: true, correlate: 'orderId' })
        placed(): void {
          this.send(f.ConfirmOrder.create({ orderId: this.orderId! }));
          this.scheduleTimeout(f.PaymentTimedOut.create({ orderId: this.orderId! }), { after: '1h' });
          throw new Error('changed its mind');
        }
      }
      await domain.init({ config: memory({ event_processing: 'async' }) });
      const orderId = await placeOrder();
      const placed = (await provider().outbox.list({ limit: 10 }))[0]!;
      await expect(domain.handleMessage(placed.envelope, { handler: Clumsy })).rejects.toThrow('changed its mind');
      const stream = processManagerStream(domain.registry.requireRecord(Clumsy, 'processManager') as ProcessManagerRecord, orderId);
      expect(await provider().eventStore.readStream(stream)).toEqual([]);
      expect((await provider().outbox.list({ limit: 10 })).map((row) => row.messageType)).toEqual(['Fulfil.OrderPlaced.v1']);
    });

    it('refuses a timeout event on a category the manager does not follow, by name', async () => {
      f = makeFulfilment();
      const { domain } = f;
      @domain.aggregate()
      class Elsewhere extends BaseAggregate {}
      @domain.event({ partOf: Elsewhere })
      class Unfollowed extends BaseEvent {
        @field.identifier() orderId?: string;
      }
      @domain.event({ partOf: f.Order })
      class Kick extends BaseEvent {
        @field.identifier() orderId?: string;
      }
      @domain.processManager({ aggregates: [f.Order] })
      class Wrong extends BaseProcessManager {
        orderId?: string;
        @handle(Kick, { start: true, correlate: 'orderId' })
        kicked(): void {
          this.scheduleTimeout(Unfollowed.create({ orderId: this.orderId }), { after: '1m' });
        }
      }
      await domain.init({ config: memory({ event_processing: 'async' }) });
      const orderId = await placeOrder();
      await domain.uow(async () => {
        const order = await domain.repositoryFor(f.Order).get(orderId);
        order.raise(Kick.create({ orderId }));
        await domain.repositoryFor(f.Order).add(order);
      });
      const kick = (await provider().outbox.list({ limit: 10 })).find((row) => row.messageType === 'Fulfil.Kick.v1')!;
      await expect(domain.handleMessage(kick.envelope, { handler: Wrong })).rejects.toThrow(
        /Wrong\.scheduleTimeout\(Unfollowed\): Unfollowed must be an event on a category Wrong follows \(fulfil::order\)/,
      );
    });
  });

  describe('domain.process(command, { deliverAt })', () => {
    beforeEach(async () => {
      f = makeFulfilment();
      await f.domain.init({ config: memory() });
    });

    it('writes the command with its due time under a key of its own', async () => {
      const at = new Date(Date.now() + 60_000);
      const id = await f.domain.process<string>(f.CancelOrder.create({ orderId: 'o-1' }), { deliverAt: at });
      const [row] = await provider().outbox.list({ limit: 10 });
      expect(row).toMatchObject({ messageId: id, status: 'scheduled', partitionKey: `fulfil::order:command-o-1/at/${id}`, sequence: 1 });
      expect(row!.deliverAt!.getTime()).toBe(at.getTime());
    });

    it('refuses an invalid date, and deliverAt with asynchronous: false, by name', async () => {
      await expect(f.domain.process(f.CancelOrder.create({ orderId: 'o' }), { deliverAt: new Date('nope') })).rejects.toThrow(InvalidDueTimeError);
      await expect(f.domain.process(f.CancelOrder.create({ orderId: 'o' }), { deliverAt: '2030-01-01' as unknown as Date })).rejects.toThrow(
        /deliverAt must be a valid Date/,
      );
      await expect(f.domain.process(f.CancelOrder.create({ orderId: 'o' }), { deliverAt: new Date(), asynchronous: false })).rejects.toThrow(
        /deliverAt needs asynchronous processing/,
      );
    });
  });
});

describe('parseDuration', () => {
  it('reads milliseconds and ms/s/m/h/d strings', () => {
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('14d')).toBe(14 * 86_400_000);
  });

  it('refuses permanently: a handler scheduling a bad duration fails the same on every retry, so it is not retried', () => {
    expect(isPermanentError(new InvalidDurationError('after', '2 weeks'))).toBe(true);
    expect(isPermanentError(new InvalidDueTimeError('at: not a Date'))).toBe(true);
    expect(isPermanentError(new ProcessManagerUsageError('outside a handler'))).toBe(true);
    expect(new InvalidDurationError('after', 'x').name).toBe('InvalidDurationError');
  });

  it.each([['15 minutes'], ['2 weeks'], ['1w'], ['-1s'], [''], ['10'], [-5], [Number.NaN], [null], [{}]])(
    'refuses %j with the accepted forms named',
    (value) => {
      expect(() => parseDuration(value, 'after')).toThrow(InvalidDurationError);
      expect(() => parseDuration(value, 'after')).toThrow(
        /after: .* is not a duration; give a number of milliseconds \(>= 0\) or a string like '500ms', '30s', '15m', '2h' or '14d'/,
      );
    },
  );
});

it('a NaN or Infinity duration is named as such in the error, not as null', () => {
  expect(() => parseDuration(Number.NaN, 'after')).toThrow(/after: NaN is not a duration/);
  expect(() => parseDuration(Number.POSITIVE_INFINITY, 'after')).toThrow(/after: Infinity is not a duration/);
});

describe('process manager model checks (domain.init refuses by name)', () => {
  function problemsOf(
    define: (domain: Domain, parts: { Order: ClassRef<BaseAggregate>; Placed: ClassRef<BaseEvent>; Cmd: ClassRef<BaseCommand> }) => void,
  ): string[] {
    const domain = new Domain('Check');
    @domain.aggregate()
    class Order extends BaseAggregate {}
    @domain.event({ partOf: Order })
    class Placed extends BaseEvent {
      @field.identifier() orderId?: string;
    }
    @domain.command({ partOf: Order })
    class Cmd extends BaseCommand {
      @field.identifier() orderId?: string;
    }
    define(domain, { Order, Placed, Cmd });
    try {
      domain.checkModel();
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(DomainModelError);
      return (error as DomainModelError).message.split('\n');
    }
  }

  it('a handler without correlate', () => {
    const problems = problemsOf((domain, { Order, Placed }) => {
      @domain.processManager({ aggregates: [Order] })
      class NoCorrelate extends BaseProcessManager {
        @handle(Placed, { start: true })
        placed(): void {}
      }
      void NoCorrelate;
    });
    expect(problems.join('\n')).toMatch(/NoCorrelate\.placed: @handle\(Placed\) in a process manager needs correlate/);
  });

  it('no start handler, a correlate field the event lacks, a malformed map, a command, nothing followed', () => {
    const problems = problemsOf((domain, { Placed, Cmd }) => {
      @domain.processManager({})
      class Broken extends BaseProcessManager {
        @handle(Placed, { correlate: 'orderNumber' })
        placed(): void {}
        @handle(Cmd as never, { correlate: 'orderId' })
        command(): void {}
        @handle(Placed as never, { correlate: { a: 'x', b: 'y' } })
        twice(): void {}
      }
      void Broken;
    }).join('\n');
    expect(problems).toMatch(/Broken \(process manager\): follows no stream/);
    expect(problems).toMatch(/Broken \(process manager\): no @handle method starts the process/);
    expect(problems).toMatch(/Broken\.placed: correlate names "orderNumber", which is not a field of Placed/);
    expect(problems).toMatch(/Broken\.command: @handle\(Cmd\) in a process manager must name a registered event \(Cmd is a command\)/);
    expect(problems).toMatch(/Broken\.twice: correlate must be a field name or a one-entry map/);
    expect(problems).toMatch(/Broken \(process manager\): has 2 methods for Placed/);
  });

  it('handlers correlating to different manager fields, an unfollowed category, an unregistered aggregate', () => {
    const problems = problemsOf((domain, { Order, Placed }) => {
      class NotRegistered extends BaseAggregate {}
      @domain.aggregate()
      class Other extends BaseAggregate {}
      @domain.event({ partOf: Other })
      class OtherHappened extends BaseEvent {
        @field.identifier() ref?: string;
      }
      @domain.processManager({ aggregates: [Order, NotRegistered] })
      class Split extends BaseProcessManager {
        @handle(Placed, { start: true, correlate: 'orderId' })
        placed(): void {}
        @handle(OtherHappened, { correlate: 'ref' })
        other(): void {}
      }
      void Split;
    }).join('\n');
    expect(problems).toMatch(/Split \(process manager\): aggregates lists NotRegistered, which is not a registered aggregate/);
    expect(problems).toMatch(/Split \(process manager\): its handlers correlate to different manager fields: orderId \(placed\), ref \(other\)/);
    expect(problems).toMatch(/Split\.other: OtherHappened travels on "check::other", which Split does not follow \(check::order\)/);
  });

  it('a well-formed manager passes', () => {
    expect(
      problemsOf((domain, { Order, Placed }) => {
        @domain.processManager({ aggregates: [Order] })
        class Fine extends BaseProcessManager {
          @handle(Placed, { start: true, correlate: 'orderId', end: true })
          placed(): void {}
        }
        void Fine;
      }),
    ).toEqual([]);
  });

  it('send and scheduleTimeout outside a handler are refused by name', () => {
    const domain = new Domain('Outside');
    @domain.processManager({ streamCategories: ['outside::x'] })
    class Lonely extends BaseProcessManager {
      poke(): void {
        this.markAsComplete();
      }
    }
    expect(() => new Lonely().poke()).toThrow(ProcessManagerUsageError);
    expect(() => new Lonely().poke()).toThrow(/Lonely\.markAsComplete\(\) can only be called inside one of its @handle methods/);
  });
});
