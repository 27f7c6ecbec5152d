/**
 * Priority lanes where messages are produced: `[outbox.lanes]` validation, the lane a unit of
 * work, a command option or an element's `lane` option gives each outbox row (its stream and
 * priority), the named errors for an unknown lane or a lane asked for inside a unit in another
 * one, and lanes turned off (every lane on the live stream).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { defaultConfig } from '../../src/config/index.js';
import {
  BaseAggregate,
  BaseCommand,
  BaseCommandHandler,
  BaseEvent,
  BUILTIN_PROVIDERS,
  ConfigError,
  Domain,
  field,
  handle,
  LaneConflictError,
  RegistrationError,
  UnknownLaneError,
  validateConfig,
  type OutboxRow,
} from '../../src/index.js';

function lanesDomain(lanes: Record<string, unknown>, more: { brokers?: Record<string, unknown>; outbox?: Record<string, unknown> } = {}) {
  const domain = new Domain('Lanes', {
    config: {
      databases: { default: { provider: 'memory' } },
      brokers: more.brokers ?? { default: { provider: 'inline' } },
      command_processing: 'sync',
      outbox: { ...more.outbox, lanes },
    },
  });

  @domain.aggregate()
  class Feed extends BaseAggregate {
    @field.integer({ required: true }) ticks!: number;
  }

  @domain.event({ partOf: Feed })
  class Ticked extends BaseEvent {
    @field.integer({ required: true }) n!: number;
  }

  @domain.event({ partOf: Feed, lane: 'backfill' })
  class Replayed extends BaseEvent {
    @field.integer({ required: true }) n!: number;
  }

  @domain.event({ partOf: Feed, published: true })
  class Shared extends BaseEvent {
    @field.integer({ required: true }) n!: number;
  }

  @domain.command({ partOf: Feed })
  class Tick extends BaseCommand {
    @field.identifier({ required: true }) feedId!: string;
  }

  @domain.command({ partOf: Feed, lane: 'backfill' })
  class Replay extends BaseCommand {
    @field.identifier({ required: true }) feedId!: string;
  }

  @domain.commandHandler({ partOf: Feed })
  class FeedCommands extends BaseCommandHandler {
    @handle(Tick) async tick(command: Tick): Promise<void> {
      const feed = Feed.create({ id: command.feedId, ticks: 1 });
      feed.raise(Ticked.create({ n: 1 }));
      await domain.repositoryFor(Feed).add(feed);
    }

    @handle(Replay) async replay(command: Replay): Promise<void> {
      const feed = Feed.create({ id: command.feedId, ticks: 1 });
      feed.raise(Ticked.create({ n: 1 }));
      await domain.repositoryFor(Feed).add(feed);
    }
  }

  const rows = async (): Promise<OutboxRow[]> => (domain.providers.get('default') as MemoryProvider).outbox.list({ limit: 100 });
  const addFeed =
    (event: 'Ticked' | 'Replayed' | 'Shared' = 'Ticked') =>
    async () => {
      const feed = Feed.create({ ticks: 1 });
      feed.raise({ Ticked, Replayed, Shared }[event].create({ n: 1 }));
      await domain.repositoryFor(Feed).add(feed);
    };
  return { domain, rows, addFeed, Tick, Replay, FeedCommands };
}

const where = (rows: readonly OutboxRow[]) => rows.map((row) => ({ type: row.messageType.split('.')[1], stream: row.streamName, priority: row.priority }));

describe('[outbox.lanes] settings', () => {
  const providers = { ...BUILTIN_PROVIDERS, databases: ['memory'] };

  it('defaults to lanes off, with a backfill lane and a share of 0.25, and accepts every key', () => {
    expect(defaultConfig().outbox.lanes).toEqual({ enabled: false, names: ['backfill'], share: 0.25 });
    const { config, problems } = validateConfig({ outbox: { lanes: { enabled: true, names: ['backfill', 'bulk'], share: 0.5 } } }, { providers });
    expect(problems).toEqual([]);
    expect(config.outbox.lanes).toEqual({ enabled: true, names: ['backfill', 'bulk'], share: 0.5 });
  });

  it.each([
    [{ names: ['live'] }, 'outbox.lanes.names[0]', '"live" is always a lane'],
    [{ names: ['Back Fill'] }, 'outbox.lanes.names[0]', 'a lane name is a lower-case word'],
    [{ names: ['bulk', 'bulk'] }, 'outbox.lanes.names[1]', 'listed twice'],
    [{ share: 0 }, 'outbox.lanes.share', ''],
    [{ share: 1.5 }, 'outbox.lanes.share', ''],
    [{ enabled: 'yes' }, 'outbox.lanes.enabled', ''],
  ])('refuses %j, naming %s', (lanes, path, message) => {
    const { problems } = validateConfig({ outbox: { lanes } }, { providers });
    expect(problems).toContainEqual({ path, message: expect.stringContaining(message) });
  });
});

describe('priority lanes of outbox rows', () => {
  let app: ReturnType<typeof lanesDomain> | null = null;
  afterEach(async () => {
    await app?.domain.close();
    app = null;
  });

  async function start(lanes: Record<string, unknown>) {
    app = lanesDomain(lanes);
    await app.domain.init();
    return app;
  }

  it('puts live events on the stream and a backfill unit of work on <stream>:backfill, behind live in a claim', async () => {
    const { domain, rows, addFeed } = await start({ enabled: true });
    await domain.uow(addFeed());
    await domain.uow(addFeed(), { lane: 'backfill' });
    await domain.uow(addFeed(), { lane: 'live' });
    expect(where(await rows())).toEqual([
      { type: 'Ticked', stream: 'lanes::feed', priority: 0 },
      { type: 'Ticked', stream: 'lanes::feed:backfill', priority: -1 },
      { type: 'Ticked', stream: 'lanes::feed', priority: 0 },
    ]);
  });

  it("takes an event's lane option unless the unit of work names a lane", async () => {
    const { domain, rows, addFeed } = await start({ enabled: true });
    await domain.uow(addFeed('Replayed'));
    await domain.uow(addFeed('Replayed'), { lane: 'live' });
    expect(where(await rows())).toEqual([
      { type: 'Replayed', stream: 'lanes::feed:backfill', priority: -1 },
      { type: 'Replayed', stream: 'lanes::feed', priority: 0 },
    ]);
  });

  it("gives a command's lane to the events its handler raises, and to the command row when queued", async () => {
    const { domain, rows, Tick, Replay } = await start({ enabled: true });
    await domain.process(Tick.create({ feedId: 'a' }), { lane: 'backfill' });
    await domain.process(Replay.create({ feedId: 'b' }));
    await domain.process(Tick.create({ feedId: 'c' }), { asynchronous: true, lane: 'backfill' });
    await domain.process(Replay.create({ feedId: 'd' }), { asynchronous: true });
    await domain.process(Replay.create({ feedId: 'e' }), { asynchronous: true, lane: 'live' });
    expect(where(await rows())).toEqual([
      { type: 'Ticked', stream: 'lanes::feed:backfill', priority: -1 },
      { type: 'Ticked', stream: 'lanes::feed:backfill', priority: -1 },
      { type: 'Tick', stream: 'lanes::feed:command:backfill', priority: -1 },
      { type: 'Replay', stream: 'lanes::feed:command:backfill', priority: -1 },
      { type: 'Replay', stream: 'lanes::feed:command', priority: 0 },
    ]);
  });

  it("sends a published event's rows for external brokers to the category's stream whatever its lane", async () => {
    const external = lanesDomain(
      { enabled: true },
      { brokers: { default: { provider: 'inline' }, partners: { provider: 'inline' } }, outbox: { external_brokers: ['partners'] } },
    );
    app = external;
    await external.domain.init();
    await external.domain.uow(external.addFeed('Shared'), { lane: 'backfill' });
    expect((await external.rows()).map((row) => ({ broker: row.targetBroker, stream: row.streamName, priority: row.priority }))).toEqual([
      { broker: 'default', stream: 'lanes::feed:backfill', priority: -1 },
      { broker: 'partners', stream: 'lanes::feed', priority: -1 },
    ]);
  });

  it('keeps every lane on the live stream while lanes are off (the lane still orders a claim)', async () => {
    const { domain, rows, addFeed } = await start({ enabled: false });
    await domain.uow(addFeed(), { lane: 'backfill' });
    await domain.uow(addFeed('Replayed'));
    expect(where(await rows())).toEqual([
      { type: 'Ticked', stream: 'lanes::feed', priority: -1 },
      { type: 'Replayed', stream: 'lanes::feed', priority: -1 },
    ]);
  });

  it('refuses an unknown lane with UnknownLaneError before any work, naming the lanes there are', async () => {
    const { domain, rows, addFeed, Tick } = await start({ enabled: true, names: ['backfill', 'bulk'] });
    await expect(domain.uow(addFeed(), { lane: 'backfil' })).rejects.toThrow(UnknownLaneError);
    await expect(domain.uow(addFeed(), { lane: 'backfil' })).rejects.toThrow(/use one of "live", "backfill", "bulk", or add it to \[outbox.lanes\] names/);
    await expect(domain.process(Tick.create({ feedId: 'a' }), { lane: 'fast' })).rejects.toThrow(/domain.process\(Tick\): lane: unknown lane "fast"/);
    await expect(domain.process(Tick.create({ feedId: 'a' }), { asynchronous: true, lane: 'fast' })).rejects.toThrow(UnknownLaneError);
    expect(await rows()).toEqual([]);
  });

  it('refuses at init an event or command whose lane option [outbox.lanes] does not list', async () => {
    app = lanesDomain({ enabled: true, names: ['bulk'] });
    await expect(app.domain.init()).rejects.toThrow(ConfigError);
    await expect(app.domain.init()).rejects.toThrow(/event Replayed has lane "backfill", which is not a lane; add it to \[outbox.lanes\] names/);
    await expect(app.domain.init()).rejects.toThrow(/command Replay has lane "backfill"/);
    app = null;
  });

  it('refuses a lane asked for inside a unit of work in another lane (LaneConflictError), and accepts the same one', async () => {
    const { domain, rows, addFeed } = await start({ enabled: true });
    await expect(domain.uow(() => domain.uow(addFeed(), { lane: 'backfill' }))).rejects.toThrow(LaneConflictError);
    await domain.uow(() => domain.uow(addFeed(), { lane: 'backfill' }), { lane: 'backfill' });
    expect(where(await rows())).toEqual([{ type: 'Ticked', stream: 'lanes::feed:backfill', priority: -1 }]);
  });

  it('refuses a lane option that is not a lane name when the element registers', () => {
    const domain = new Domain('Bad');
    expect(() => {
      @domain.event({ lane: 'Back Fill' })
      class Odd extends BaseEvent {}
      return Odd;
    }).toThrow(RegistrationError);
  });
});
