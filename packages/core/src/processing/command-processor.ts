/**
 * `domain.process(command)`: stamps the command's metadata, then either runs its one command
 * handler method in a unit of work and returns the result (sync), or writes it to the outbox
 * in a unit of work and returns its message id for the server to deliver later (async).
 */
import type { BaseCommand } from '../elements/base-command.js';
import type { HandlerBinding } from '../domain/registry.js';
import type { MessageContext } from '../elements/element-host.js';
import { AsyncCommandsNeedOutboxError } from '../errors/async-commands-need-outbox.error.js';
import { HandlerNotFoundError } from '../errors/handler-not-found.error.js';
import { serializeMessage } from '../messages/serialize-message.js';
import type { ProcessingMode } from '../config/config-types.js';
import { commandOutboxRow, deferredPartitionKey } from './command-outbox-row.js';
import { checkedDate } from '../process-managers/checked-date.js';
import { InvalidDueTimeError } from '../errors/invalid-due-time.error.js';
import { contextOf, invokeHandler } from './handler-invocation.js';
import type { OutboxConfig } from '../config/config-types.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';

export interface ProcessOptions {
  /** Queue the command through the outbox instead of handling it now. Default: `command_processing` from domain.toml. */
  asynchronous?: boolean;
  /**
   * Deliver it no earlier than this: written to the outbox (implies asynchronous) with a due time,
   * under a partition key of its own so it holds back no other command of its aggregate.
   */
  deliverAt?: Date;
}

export interface CommandProcessingHost {
  readonly domainName: string;
  readonly commandProcessing: ProcessingMode;
  readonly outboxEnabled: boolean;
  readonly outboxConfig: OutboxConfig;
  handlersFor(type: string): readonly HandlerBinding[];
  provider(name: string): DatabaseProvider;
  /** Runs `work` in a unit of work (joining an active one of the domain). */
  unitOfWork<R>(work: () => Promise<R>, context: Partial<MessageContext>): Promise<R>;
  activeUnitOfWork(): UnitOfWork | undefined;
}

/** The provider async commands are written to. */
export const COMMAND_OUTBOX_PROVIDER = 'default';

export async function processCommand(host: CommandProcessingHost, command: BaseCommand, options: ProcessOptions = {}): Promise<unknown> {
  const type = command._metadata!.headers.type;
  const deliverAt = options.deliverAt === undefined ? undefined : checkedDate(options.deliverAt, `domain.process(${command.constructor.name}): deliverAt`);
  if (deliverAt && options.asynchronous === false) {
    throw new InvalidDueTimeError(`domain.process(${command.constructor.name}): deliverAt needs asynchronous processing (the outbox holds the command until then); leave asynchronous out`);
  }
  const asynchronous = processesAsynchronously(host.commandProcessing, options);
  if (asynchronous) return enqueueCommand(host, command, deliverAt);
  const binding = commandHandlerFor(host, type);
  if (!binding) throw new HandlerNotFoundError(type, host.domainName);
  return host.unitOfWork(() => invokeHandler(binding.cls, binding.methods[0]!, command), contextOf(command._metadata));
}

/** Whether `domain.process(command, options)` queues the command through the outbox. */
export function processesAsynchronously(mode: ProcessingMode, options: ProcessOptions): boolean {
  return options.deliverAt !== undefined || (options.asynchronous ?? mode === 'async');
}

/** The one command handler binding for `type`, or undefined. */
export function commandHandlerFor(host: Pick<CommandProcessingHost, 'handlersFor'>, type: string): HandlerBinding | undefined {
  return host.handlersFor(type).find((binding) => binding.record.kind === 'commandHandler' && binding.methods.length > 0);
}

async function enqueueCommand(host: CommandProcessingHost, command: BaseCommand, deliverAt: Date | undefined): Promise<string> {
  if (!host.outboxEnabled) throw new AsyncCommandsNeedOutboxError(command.constructor.name);
  const envelope = serializeMessage(command);
  const immediate = commandOutboxRow(envelope, host.outboxConfig);
  const row = deliverAt ? { ...immediate, partitionKey: deferredPartitionKey(immediate), deliverAt } : immediate;
  await host.unitOfWork(async () => {
    const uow = host.activeUnitOfWork()!;
    const tx = await uow.transactionFor(COMMAND_OUTBOX_PROVIDER);
    await host.provider(COMMAND_OUTBOX_PROVIDER).outbox.append(tx, [row]);
  }, contextOf(command._metadata));
  return envelope.metadata.headers.id;
}
