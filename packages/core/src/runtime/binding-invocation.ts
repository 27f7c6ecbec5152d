/**
 * How the runtime calls a handler binding: handlers are called as they are; a projector first
 * holds its projection's status (the rebuild barrier); a process manager gets its instance loaded
 * and stored around the call, with the transitions this worker last wrote kept in memory.
 */
import type { BindingInvoker } from '../processing/message-handling.js';
import { invokeHandler } from '../processing/handler-invocation.js';
import { ProjectionBarrier } from '../processing/projection-barrier.js';
import { runProcessManager, type ProcessManagerHost } from '../process-managers/process-manager-runner.js';
import { TransitionCache } from '../process-managers/transition-cache.js';
import type { ClassRef } from '../fields/field-definition.js';
import { currentMessageContext } from '../uow/uow-storage.js';
import type { RuntimeContext } from './runtime-context.js';
import type { RuntimeProjections, RuntimeUnits } from './runtime-surface.js';

export class BindingInvocation implements RuntimeProjections {
  readonly transitions = new TransitionCache();
  private readonly barrier: ProjectionBarrier;

  constructor(
    private readonly context: RuntimeContext,
    private readonly units: RuntimeUnits,
  ) {
    this.barrier = new ProjectionBarrier({
      registry: () => context.registry,
      provider: (name) => context.provider(name),
      activeUnitOfWork: () => units.active(),
    });
  }

  enterBarrier(projector: ClassRef): Promise<void> {
    return this.barrier.enter({ cls: projector });
  }

  readonly invoke: BindingInvoker = async (binding, method, message) => {
    await this.barrier.enter(binding);
    if (binding.record.kind !== 'processManager') return invokeHandler(binding.cls, method, message);
    return runProcessManager(this.processManagerHost(), binding.cls, method, message);
  };

  private processManagerHost(): ProcessManagerHost {
    const { context } = this;
    const config = context.require('running a process manager');
    return {
      domainName: context.domainName,
      registry: context.registry,
      outboxEnabled: context.outboxEnabled,
      outboxConfig: config.outbox,
      eventProcessing: config.event_processing,
      clock: context.clock,
      stateStore: () => ({ store: context.provider(config.event_store.database).eventStore, provider: config.event_store.database }),
      transitions: this.transitions,
      provider: (name) => context.provider(name),
      activeUnitOfWork: () => this.units.active(),
      messageContext: () => currentMessageContext(),
    };
  }
}
