/**
 * The model bench/hop drives. Sources raise `SourceTicked` (the messages read from Redis, one
 * partition key per source); the handler loads the counter of that source, bumps it and the
 * counter raises one `CounterBumped`, saved with its outbox row in the handler's transaction.
 */
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle } from '@protean-ts/core';

// root: the benchmark's own domain.toml sits next to this file.
export const hopDomain = new Domain('Hop', { root: import.meta.url });

@hopDomain.aggregate()
export class Source extends BaseAggregate {
  @field.string({ required: true }) label!: string;

  tick(n: number): void {
    this.raise(SourceTicked.create({ sourceId: this.id, n }));
  }
}

@hopDomain.event({ partOf: Source })
export class SourceTicked extends BaseEvent {
  @field.identifier({ required: true }) sourceId!: string;
  @field.integer({ required: true }) n!: number;
}

/** One per source, identified by the source's id. */
@hopDomain.aggregate()
export class Counter extends BaseAggregate {
  @field.identifier({ identifier: true }) sourceId!: string;
  @field.integer({ required: true }) count!: number;
  @field.integer() lastTick?: number;

  bump(tick: number): void {
    this.count += 1;
    this.lastTick = tick;
    this.raise(CounterBumped.create({ sourceId: this.sourceId, count: this.count }));
  }
}

@hopDomain.event({ partOf: Counter })
export class CounterBumped extends BaseEvent {
  @field.identifier({ required: true }) sourceId!: string;
  @field.integer({ required: true }) count!: number;
}

/** The hop under test: load by key, change, raise one event, save. */
@hopDomain.eventHandler({ streamCategory: Source })
export class CounterKeeper extends BaseEventHandler {
  @handle(SourceTicked)
  async onTicked(event: SourceTicked): Promise<void> {
    const counters = hopDomain.repositoryFor(Counter);
    const counter = await counters.get(event.sourceId);
    counter.bump(event.n);
    await counters.add(counter);
  }
}
