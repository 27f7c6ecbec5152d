/**
 * The projector side of a rebuild's barrier: in each projector unit of work, before its `@on`
 * method runs, the projection's status row is held (PostgreSQL: `FOR SHARE`) in the
 * transaction of the projection's database. A rebuild's mark therefore waits for projector
 * transactions in flight, and a projector that starts during a rebuild is refused with
 * ProjectionRebuildingError (its subscription waits and tries again; nothing is written).
 */
import type { ElementRegistry, HandlerBinding } from '../registry/registry.js';
import { ProjectionRebuildingError } from '../errors/projection-rebuilding.error.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';

export interface ProjectionBarrierHost {
  registry(): ElementRegistry;
  provider(name: string): DatabaseProvider;
  activeUnitOfWork(): UnitOfWork | undefined;
}

export class ProjectionBarrier {
  constructor(private readonly host: ProjectionBarrierHost) {}

  /** Nothing for handlers; for a projector, holds its projection's status or throws while it is rebuilt. */
  async enter(binding: Pick<HandlerBinding, 'cls'>): Promise<void> {
    const projector = this.host.registry().recordOf(binding.cls);
    if (projector?.kind !== 'projector' || !projector.options.projectorFor) return;
    const projection = this.host.registry().recordOf(projector.options.projectorFor);
    if (projection?.kind !== 'projection') return;
    const uow = this.host.activeUnitOfWork();
    if (!uow) return;
    const database = projection.options.provider;
    const tx = await uow.transactionFor(database);
    if (await this.host.provider(database).projections.holdForProjector(tx, projection.name)) {
      throw new ProjectionRebuildingError(projection.name, projector.name);
    }
  }
}
