/**
 * Runs a function in a unit of work: joins the caller's unit when one of the same domain is
 * active (nested units commit with the outermost), otherwise starts one, commits it when the
 * function resolves and rolls it back when it throws.
 */
import type { BaseEvent } from '../elements/base-event.js';
import type { MessageContext } from '../elements/element-host.js';
import { inSpan } from '../tracing/in-span.js';
import { SpanAttributes, SpanNames } from '../tracing/span-names.js';
import { LaneConflictError } from '../errors/lane-conflict.error.js';
import { UnitOfWork, type UnitOfWorkHost } from './unit-of-work.js';
import { currentMessageContext, currentUnitOfWork, unitOfWorkStorage } from './uow-storage.js';

/** `domain.uow(work, options)`. */
export interface UnitOfWorkOptions {
  /** The priority lane of the events raised in the unit: `'live'` or a lane of `[outbox.lanes] names`. Default: each event's `lane` option, else `live`. */
  lane?: string;
}

export interface UnitOfWorkRun {
  /** Correlation for the events raised by `work`; when joining an outer unit it applies to `work` only. */
  context?: Partial<MessageContext>;
  /** Always start a new unit, even inside another one (handlers dispatched after a commit). */
  fresh?: boolean;
  /** The priority lane of the events raised in the unit; a joined unit must already be in it (LaneConflictError). */
  lane?: string;
  /** Called with the committed events after a new unit commits, outside it. */
  afterCommit?: (events: BaseEvent[]) => Promise<void>;
}

export async function runInUnitOfWork<R>(host: UnitOfWorkHost, work: () => Promise<R> | R, run: UnitOfWorkRun = {}): Promise<R> {
  const outer = currentUnitOfWork();
  if (outer && outer.host === host && !run.fresh) {
    if (run.lane !== undefined && run.lane !== outer.lane) throw new LaneConflictError(run.lane, outer.lane);
    if (!run.context) return work();
    const context = { ...(currentMessageContext() ?? outer.context), ...definedOnly(run.context) };
    return unitOfWorkStorage.run({ uow: outer, context }, work);
  }
  const uow = new UnitOfWork(host, run.context, run.lane);
  let result: R;
  let events: BaseEvent[];
  try {
    result = await unitOfWorkStorage.run({ uow, context: uow.context }, work);
    events = await commitTraced(uow);
  } catch (error) {
    await uow.rollback();
    throw error;
  }
  // Sync handlers run after the commit and outside this unit, each in a unit of its own. A unit
  // inside a batch has only released its savepoint: that waits for the batch's commit.
  if (run.afterCommit && events.length) {
    const afterCommit = () => unitOfWorkStorage.exit(() => run.afterCommit!(events));
    const batch = uow.batchClaim;
    if (batch) batch.afterBatchCommit(afterCommit);
    else await afterCommit();
  }
  return result;
}

/** The commit (outbox rows, every provider's transaction) as a `protean.uow.commit` span. */
function commitTraced(uow: UnitOfWork): Promise<BaseEvent[]> {
  const spec = () => ({
    attributes: {
      [SpanAttributes.domain]: uow.host.domainName,
      [SpanAttributes.unitOfWork]: uow.id,
      [SpanAttributes.aggregate]: [...new Set(uow.trackedAggregates.map((tracked) => tracked.schema.name))],
    },
  });
  return inSpan(SpanNames.uowCommit, spec, async (span) => {
    const events = await uow.commit();
    span?.setAttribute(SpanAttributes.eventCount, events.length);
    return events;
  });
}

function definedOnly(context: Partial<MessageContext>): Partial<MessageContext> {
  return Object.fromEntries(Object.entries(context).filter(([, value]) => value !== undefined));
}
