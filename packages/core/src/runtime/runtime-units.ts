/**
 * The units of work of one domain: each is run through `runInUnitOfWork` with this domain's
 * unit host (its providers and the outbox rows of raised events), and tells the committed-event
 * hooks once it commits.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { MessageContext } from '../elements/element-host.js';
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import type { ClassRef } from '../fields/field-definition.js';
import { checkedLane, LIVE_LANE } from '../messages/lanes.js';
import { laneOptionOf } from '../registry/lane-option.js';
import { outboxRowsForEvents } from '../uow/outbox-rows.js';
import { runInUnitOfWork } from '../uow/run-in-unit-of-work.js';
import type { UnitOfWork, UnitOfWorkHost } from '../uow/unit-of-work.js';
import { currentUnitOfWork } from '../uow/uow-storage.js';
import type { RuntimeContext } from './runtime-context.js';
import type { RuntimeUnits as RuntimeUnitsSurface } from './runtime-surface.js';

export type AfterCommit = (events: BaseEvent[]) => Promise<void>;

export class RuntimeUnits implements RuntimeUnitsSurface {
  /** Identifies this domain's units: `active()` ignores a unit another domain started. */
  private readonly host: UnitOfWorkHost;

  constructor(
    private readonly context: RuntimeContext,
    private readonly afterCommit: AfterCommit,
  ) {
    this.host = {
      domainName: context.domainName,
      provider: (name: string) => context.provider(name),
      outboxRowsFor: (aggregate: BaseAggregate, schema: AggregateSchema, events: readonly BaseEvent[], lane: string | undefined): NewOutboxRow[] => {
        if (!context.outboxEnabled) return [];
        const category = context.registry.streamCategoryOf(schema.aggregate);
        const { outbox } = context.require('reading domain.config');
        const laneOf = (event: BaseEvent) => {
          const chosen = lane ?? this.defaultLaneOf(event.constructor as ClassRef);
          return checkedLane(chosen, outbox.lanes, lane === undefined ? `${event.constructor.name} (its lane option)` : 'the unit of work');
        };
        return outboxRowsForEvents({ aggregateStream: `${category}-${aggregate.id}`, events, laneOf }, outbox);
      },
    };
  }

  /** `lane`: the priority lane of the events raised in it (checked here, so a wrong name fails before any work). */
  async run<R>(work: () => Promise<R> | R, context: Partial<MessageContext> = {}, lane?: string): Promise<R> {
    const config = this.context.require('starting a unit of work');
    if (lane !== undefined) checkedLane(lane, config.outbox.lanes, 'the unit of work');
    return runInUnitOfWork(this.host, work, { context, afterCommit: this.afterCommit, ...(lane !== undefined ? { lane } : {}) });
  }

  /** The `lane` option of a registered event or command; `live` without one. */
  defaultLaneOf(cls: ClassRef): string {
    return laneOptionOf(this.context.registry.recordOf(cls)) ?? LIVE_LANE;
  }

  async fresh<R>(work: () => Promise<R> | R, context: Partial<MessageContext> = {}): Promise<R> {
    this.context.require('starting a unit of work');
    return runInUnitOfWork(this.host, work, { context, fresh: true, afterCommit: this.afterCommit });
  }

  active(): UnitOfWork | undefined {
    const uow = currentUnitOfWork();
    return uow?.host === this.host ? uow : undefined;
  }
}
