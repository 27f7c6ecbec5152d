/**
 * The projection status rows of a memory database. One process owns a memory database, so the
 * barrier needs no lock: the flag is read in the projector's unit of work and set by the rebuild.
 */
import type { AggregateSchema } from '../../ports/aggregate-dao.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import type { ProjectionState, ProjectionStatusStore } from '../../ports/projection-status-store.js';
import type { ReaderCursor } from '../../ports/event-store-records.js';

export class MemoryProjectionStatus implements ProjectionStatusStore {
  private readonly states = new Map<string, ProjectionState>();

  constructor(private readonly emptyTables: (schema: AggregateSchema) => void) {}

  async holdForProjector(_tx: ProviderTransaction, projection: string): Promise<boolean> {
    return this.row(projection).rebuilding;
  }

  async markRebuilding(projection: string): Promise<void> {
    Object.assign(this.row(projection), { rebuilding: true, rebuildStartedAt: new Date() });
  }

  async markRebuilt(projection: string, eventsApplied: number, through: ReaderCursor): Promise<void> {
    Object.assign(this.row(projection), { rebuilding: false, rebuiltAt: new Date(), eventsApplied, rebuiltThrough: { ...through } });
  }

  async state(projection: string): Promise<ProjectionState | null> {
    const state = this.states.get(projection);
    return state ? { ...state } : null;
  }

  async truncate(schema: AggregateSchema): Promise<void> {
    this.emptyTables(schema);
  }

  clear(): void {
    this.states.clear();
  }

  private row(projection: string): ProjectionState {
    let state = this.states.get(projection);
    if (!state) {
      state = { projection, rebuilding: false, rebuildStartedAt: null, rebuiltAt: null, eventsApplied: null, rebuiltThrough: null };
      this.states.set(projection, state);
    }
    return state;
  }
}
