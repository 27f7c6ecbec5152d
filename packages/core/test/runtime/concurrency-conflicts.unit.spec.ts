import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseEvent,
  BaseEventHandler,
  configureLogging,
  Domain,
  ExpectedVersionError,
  field,
  handle,
  retryOnConflict,
  serializeMessage,
} from '../../src/index.js';

// Many handlers change one busy aggregate at once; each loser of the version race must run
// again (a fresh unit of work reloads the aggregate) instead of failing or losing its effect.
function makeTally() {
  const domain = new Domain('Tally');

  @domain.aggregate()
  class Counter extends BaseAggregate {
    @field.integer({ required: true }) total!: number;
  }

  @domain.aggregate()
  class Source extends BaseAggregate {
    @field.string() label?: string;
  }

  @domain.event({ partOf: Source })
  class Ticked extends BaseEvent {
    @field.identifier({ required: true }) counterId!: string;
  }

  let runs = 0;
  @domain.eventHandler({ partOf: Counter, streamCategory: Source })
  class CountTicks extends BaseEventHandler {
    @handle(Ticked) async onTicked(event: Ticked): Promise<void> {
      runs += 1;
      const repo = domain.repositoryFor(Counter);
      const counter = await repo.get(event.counterId);
      // Yield between read and write so concurrent runs really interleave.
      await new Promise((resolve) => setTimeout(resolve, 1));
      counter.total += 1;
      await repo.add(counter);
    }
  }

  return { domain, Counter, Source, Ticked, CountTicks, runs: () => runs };
}

describe('concurrency conflicts in handlers', () => {
  let tally: ReturnType<typeof makeTally>;
  let restoreLogging: ReturnType<typeof configureLogging>;

  beforeEach(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    tally = makeTally();
    await tally.domain.init({ config: { databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } } });
  });
  afterEach(async () => {
    await tally.domain.close();
    configureLogging(restoreLogging);
  });

  async function tickEnvelopes(counterId: string, count: number) {
    const envelopes = [];
    for (let i = 0; i < count; i++) {
      const source = tally.Source.create({ label: `s${i}` });
      source.raise(tally.Ticked.create({ counterId }));
      envelopes.push(serializeMessage(source.pendingEvents()[0]!));
    }
    return envelopes;
  }

  it('handleMessage runs a handler again when it lost a version race, so every effect lands', async () => {
    const counter = tally.Counter.create({ total: 0 });
    await tally.domain.uow(() => tally.domain.repositoryFor(tally.Counter).add(counter));

    const envelopes = await tickEnvelopes(counter.id, 8);
    const outcomes = await Promise.all(envelopes.map((envelope) => tally.domain.handleMessage(envelope)));

    expect(outcomes).toEqual(Array(8).fill('handled'));
    expect((await tally.domain.repositoryFor(tally.Counter).get(counter.id)).total).toBe(8);
    expect(tally.runs()).toBeGreaterThan(8);
  });

  it('retryOnConflict gives up after its attempts and throws the last conflict', async () => {
    let calls = 0;
    const conflict = () => new ExpectedVersionError('Counter', 'c1', 1, 2);
    const failing = retryOnConflict(
      async () => {
        calls += 1;
        throw conflict();
      },
      undefined,
      { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    );
    await expect(failing).rejects.toThrow(ExpectedVersionError);
    expect(calls).toBe(3);
  });

  it('retryOnConflict does not run work again for other errors', async () => {
    let calls = 0;
    const failing = retryOnConflict(async () => {
      calls += 1;
      throw new Error('not a conflict');
    });
    await expect(failing).rejects.toThrow('not a conflict');
    expect(calls).toBe(1);
  });
});
