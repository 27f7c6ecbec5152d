/**
 * `domain.process(command)`: stamps the command's metadata inside the `protean.command.process`
 * span and hands it to processCommand (sync: its handler in a unit of work; async: an outbox
 * row in the database its aggregate uses). Also where queued commands and their outcomes live.
 */
import { SpanKind } from '@opentelemetry/api';
import type { BaseCommand } from '../elements/base-command.js';
import { stampCommand } from '../elements/stamp-command.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import { commandDatabase } from '../processing/command-database.js';
import { refused } from '../processing/command-outcomes.js';
import { laneOptionOf } from '../registry/lane-option.js';
import { processCommand, processesAsynchronously, type ProcessOptions } from '../processing/command-processor.js';
import { inSpan } from '../tracing/in-span.js';
import { commandSpanAttributes } from '../tracing/message-span-attributes.js';
import { SpanNames } from '../tracing/span-names.js';
import { currentMessageContext } from '../uow/uow-storage.js';
import { recordsOutcome } from './command-outcome-recording.js';
import type { RuntimeContext } from './runtime-context.js';
import type { RuntimeCommands, RuntimeUnits } from './runtime-surface.js';

export class CommandDispatch implements RuntimeCommands {
  constructor(
    private readonly context: RuntimeContext,
    private readonly units: RuntimeUnits,
  ) {}

  async process(command: BaseCommand, options: ProcessOptions = {}): Promise<unknown> {
    const config = this.context.require(`processing ${command?.constructor?.name}`);
    const asynchronous = processesAsynchronously(config.command_processing, options);
    return inSpan(SpanNames.commandProcess, { kind: asynchronous ? SpanKind.PRODUCER : SpanKind.INTERNAL }, async (span) => {
      // Stamped inside the span: an async command's trace headers name this span as its parent.
      const stamped = stampCommand(this.context.registry, command, this.units.active() ? currentMessageContext() : undefined);
      span?.setAttributes(commandSpanAttributes(this.context.domainName, stamped, asynchronous));
      return this.processStamped(stamped, options);
    });
  }

  private processStamped(stamped: BaseCommand, options: ProcessOptions): Promise<unknown> {
    const { context } = this;
    const config = context.require(`processing ${stamped.constructor.name}`);
    return processCommand(
      {
        domainName: context.domainName,
        commandProcessing: config.command_processing,
        outboxEnabled: context.outboxEnabled,
        outboxConfig: config.outbox,
        handlersFor: (type) => context.registry.handlersFor(type),
        provider: (name) => context.provider(name),
        commandDatabase: (command) => this.database(command.constructor as ClassRef),
        unitOfWork: (work, unitContext, lane) => this.units.run(work, unitContext, lane),
        defaultLaneOf: (command) => laneOptionOf(context.registry.recordOf(command.constructor as ClassRef)),
        activeUnitOfWork: () => this.units.active(),
      },
      stamped,
      options,
    );
  }

  async recordGivenUp(envelope: MessageEnvelope, error: unknown): Promise<void> {
    if (!recordsOutcome(envelope)) return;
    const outcomes = this.context.provider(this.database(envelope.metadata.headers.type)).commandOutcomes;
    await outcomes.complete(null, envelope.metadata.headers.id, refused(error));
  }

  /** Its aggregate's database (see processing/command-database.ts). */
  database(command: ClassRef | string): string {
    const config = this.context.require('finding the database of a command');
    return commandDatabase(this.context.registry, command, {
      eventStoreDatabase: config.event_store.database,
      databases: this.context.databaseNames(),
    });
  }

  databases(): string[] {
    const commands = this.context.registry.recordsOf('command');
    return [...new Set(commands.map((record) => this.database(record.cls)))];
  }
}
