/**
 * Commands that report back on the memory database: idempotency keys run a command once even
 * when two arrive together (the key is held until the first unit of work ends), refusals are
 * kept for their key, a queued command's outcome is recorded by its handler and awaited, and
 * `[command_outcomes] retention_hours` is validated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseCommandHandler,
  CommandRefusedError,
  ConfigError,
  Domain,
  field,
  handle,
  InvalidProcessOptionsError,
  loadConfig,
  OutcomeTimeoutError,
  PermanentError,
  type MessageEnvelope,
} from '../../src/index.js';
import { tomlFile } from '../config/config-fixture.js';

const shop = new Domain('Outcomes');
const runs = { place: 0, flaky: 0 };
class OutOfStock extends PermanentError {}

@shop.aggregate()
class Basket extends BaseAggregate {
  @field.string({ required: true }) owner!: string;
}

@shop.command({ partOf: Basket })
class Checkout extends BaseCommand {
  @field.string({ required: true }) owner!: string;
}

@shop.commandHandler({ partOf: Basket })
export class Tills extends BaseCommandHandler {
  @handle(Checkout) async checkout(command: Checkout): Promise<{ basketId: string }> {
    runs.place += 1;
    if (command.owner === 'nobody') throw new OutOfStock('nothing left for nobody');
    if (command.owner === 'flaky' && runs.flaky++ === 0) throw new Error('the till jammed');
    const basket = Basket.create({ owner: command.owner });
    await shop.repositoryFor(Basket).add(basket);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { basketId: basket.id };
  }
}

const queued = async (): Promise<MessageEnvelope[]> => (await shop.providers.get('default')!.outbox.list({ limit: 100 })).map((row) => row.envelope);

describe('commands that report back, in memory', () => {
  beforeAll(() => shop.init({ config: { databases: { default: { provider: 'memory' } } } }));
  afterAll(() => shop.close());

  it("runs two concurrent commands with one key once; both get the first one's result", async () => {
    runs.place = 0;
    const [a, b] = await Promise.all([
      shop.process(Checkout.create({ owner: 'ann' }), { idempotencyKey: 'k1' }),
      shop.process(Checkout.create({ owner: 'ann' }), { idempotencyKey: 'k1' }),
    ]);
    expect(runs.place).toBe(1);
    expect(b).toEqual(a);
    expect(await shop.repositoryFor(Basket).count()).toBe(1);
  });

  it("gives a repeat in the same unit of work the first one's result, as SQL would", async () => {
    runs.place = 0;
    const [first, second] = await shop.uow(async () => [
      await shop.process(Checkout.create({ owner: 'eve' }), { idempotencyKey: 'k4' }),
      await shop.process(Checkout.create({ owner: 'eve' }), { idempotencyKey: 'k4' }),
    ]);
    expect(second).toEqual(first);
    expect(runs.place).toBe(1);
  });

  it('frees the key of a command that failed for a transient reason: a retry runs', async () => {
    await expect(shop.process(Checkout.create({ owner: 'flaky' }), { idempotencyKey: 'k3' })).rejects.toThrow('the till jammed');
    const { basketId } = await shop.process<{ basketId: string }>(Checkout.create({ owner: 'flaky' }), { idempotencyKey: 'k3' });
    expect((await shop.repositoryFor(Basket).get(basketId)).owner).toBe('flaky');
    expect(runs.flaky).toBe(2);
  });

  it('keeps a refusal for its key: a repeat rejects with it without running', async () => {
    runs.place = 0;
    await expect(shop.process(Checkout.create({ owner: 'nobody' }), { idempotencyKey: 'k2' })).rejects.toBeInstanceOf(OutOfStock);
    const again = shop.process(Checkout.create({ owner: 'nobody' }), { idempotencyKey: 'k2' });
    await expect(again).rejects.toBeInstanceOf(CommandRefusedError);
    await expect(again).rejects.toMatchObject({ errorName: 'OutOfStock', errorMessage: 'nothing left for nobody', command: 'Checkout' });
    expect(runs.place).toBe(1);
  });

  it("records a queued command's result when its handler runs, for the waiting sender", async () => {
    const before = (await queued()).length;
    const outcome = shop.process<{ basketId: string }>(Checkout.create({ owner: 'bo' }), { asynchronous: true, awaitOutcome: { timeoutMs: 10_000 } });
    let envelope: MessageEnvelope | undefined;
    while (!envelope) {
      envelope = (await queued())[before];
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(envelope.metadata.extensions.protean_outcome).toBe(true);
    await shop.handleMessage(envelope);
    const { basketId } = await outcome;
    expect((await shop.repositoryFor(Basket).get(basketId)).owner).toBe('bo');
  });

  it('leaves commands sent without awaitOutcome or key unmarked and unrecorded', async () => {
    const id = await shop.process<string>(Checkout.create({ owner: 'cy' }), { asynchronous: true });
    const envelope = (await queued()).find((e) => e.metadata.headers.id === id)!;
    expect(envelope.metadata.extensions.protean_outcome).toBeUndefined();
    expect(await shop.providers.get('default')!.commandOutcomes.get(id)).toBeNull();
  });

  it('times out naming the command and saying it may still run', async () => {
    const outcome = shop.process(Checkout.create({ owner: 'di' }), { asynchronous: true, awaitOutcome: { timeoutMs: 50 } });
    await expect(outcome).rejects.toBeInstanceOf(OutcomeTimeoutError);
    await expect(outcome).rejects.toThrow(/^Checkout .*: no outcome within 50 ms; the command is queued and may still run/);
  });

  it('refuses malformed options by name', async () => {
    await expect(shop.process(Checkout.create({ owner: 'x' }), { idempotencyKey: 'x'.repeat(201) })).rejects.toBeInstanceOf(InvalidProcessOptionsError);
    await expect(shop.process(Checkout.create({ owner: 'x' }), { asynchronous: true, awaitOutcome: { timeoutMs: 1.5 } })).rejects.toThrow(
      /awaitOutcome must be \{ timeoutMs \} with a whole number/,
    );
  });
});

describe('[command_outcomes] retention_hours', () => {
  it('defaults to 24 hours and takes a positive number', () => {
    expect(loadConfig({ configPath: tomlFile(''), env: {} }).config.command_outcomes.retention_hours).toBe(24);
    expect(loadConfig({ configPath: tomlFile('[command_outcomes]\nretention_hours = 0.5\n'), env: {} }).config.command_outcomes.retention_hours).toBe(0.5);
  });

  it.each(['0', '-1', '1000000', '"a day"'])('refuses retention_hours = %s, naming the key', (value) => {
    const load = () => loadConfig({ configPath: tomlFile(`[command_outcomes]\nretention_hours = ${value}\n`), env: {} });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/command_outcomes\.retention_hours/);
  });
});
