/**
 * `domain.process(command)`: stamps the command's metadata, then either runs its one command
 * handler method in a unit of work and returns the result (sync), or writes it to the outbox of
 * its aggregate's database (command-database.ts) in a unit of work and returns its message id for
 * the server to deliver later (async) — or, with `awaitOutcome`, waits for the outcome its handler
 * records. An idempotency key is claimed in the same unit of work: a key already taken gives the
 * first command's outcome instead.
 */
import type { BaseCommand } from '../elements/base-command.js';
import type { HandlerBinding } from '../registry/registry.js';
import type { MessageContext } from '../elements/element-host.js';
import { AsyncCommandsNeedOutboxError } from '../errors/async-commands-need-outbox.error.js';
import { HandlerNotFoundError } from '../errors/handler-not-found.error.js';
import { serializeMessage } from '../messages/serialize-message.js';
import { checkedLane, LIVE_LANE } from '../messages/lanes.js';
import type { ProcessingMode } from '../config/config-types.js';
import { commandOutboxRow, deferredPartitionKey } from './command-outbox-row.js';
import { checkedDate } from './checked-date.js';
import { InvalidDueTimeError } from '../errors/invalid-due-time.error.js';
import { contextOf, invokeHandler } from './handler-invocation.js';
import type { OutboxConfig } from '../config/config-types.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import type { CommandOutcomeRecord, CommandOutcomeStore } from '../ports/command-outcome-store.js';
import { isPermanentError } from '../errors/permanent-error.js';
import {
  awaitOutcome,
  checkedIdempotencyKey,
  checkedTimeout,
  DEFAULT_REUSED_KEY_WAIT_MS,
  OUTCOME_EXTENSION,
  refused,
  settle,
  succeeded,
} from './command-outcomes.js';

export interface ProcessOptions {
  /** Queue the command through the outbox instead of handling it now. Default: `command_processing` from domain.toml. */
  asynchronous?: boolean;
  /**
   * Deliver it no earlier than this: written to the outbox (implies asynchronous) with a due time,
   * under a partition key of its own so it holds back no other command of its aggregate.
   */
  deliverAt?: Date;
  /**
   * Asynchronous only: wait for the outcome its handler records (in a server process, say) and
   * resolve with the handler's result, or reject with `CommandRefusedError` (the handler threw a
   * permanent error) or `OutcomeTimeoutError` (no outcome in time; the command may still run).
   */
  awaitOutcome?: { timeoutMs: number };
  /**
   * A second command with the same key (within `[command_outcomes] retention_hours`) does not run:
   * it gets the first one's outcome (sync, or with `awaitOutcome`) or message id (async).
   */
  idempotencyKey?: string;
  /**
   * The priority lane (`'live'` or a lane of `[outbox.lanes] names`): of the command itself when
   * queued, and of the events its handler raises when handled now. Default: the command's `lane`
   * option, else `live` (docs/flow-control.md, priority lanes).
   */
  lane?: string;
}

export interface CommandProcessingHost {
  readonly domainName: string;
  readonly commandProcessing: ProcessingMode;
  readonly outboxEnabled: boolean;
  readonly outboxConfig: OutboxConfig;
  handlersFor(type: string): readonly HandlerBinding[];
  provider(name: string): DatabaseProvider;
  /** The database `command` is queued in and its outcome recorded in (its aggregate's; see command-database.ts). */
  commandDatabase(command: BaseCommand): string;
  /** Runs `work` in a unit of work (joining an active one of the domain), in `lane` when given. */
  unitOfWork<R>(work: () => Promise<R>, context: Partial<MessageContext>, lane?: string): Promise<R>;
  /** The command's `lane` option; undefined when it has none. */
  defaultLaneOf(command: BaseCommand): string | undefined;
  activeUnitOfWork(): UnitOfWork | undefined;
}

export async function processCommand(host: CommandProcessingHost, command: BaseCommand, options: ProcessOptions = {}): Promise<unknown> {
  const type = command._metadata!.headers.type;
  const name = command.constructor.name;
  const deliverAt = options.deliverAt === undefined ? undefined : checkedDate(options.deliverAt, `domain.process(${name}): deliverAt`);
  if (deliverAt && options.asynchronous === false) {
    throw new InvalidDueTimeError(
      `domain.process(${name}): deliverAt needs asynchronous processing (the outbox holds the command until then); leave asynchronous out`,
    );
  }
  const waitMs = checkedTimeout(options.awaitOutcome, name);
  const key = checkedIdempotencyKey(options.idempotencyKey, name);
  const asynchronous = processesAsynchronously(host.commandProcessing, options);
  const lane = options.lane === undefined ? undefined : checkedLane(options.lane, host.outboxConfig.lanes, `domain.process(${name}): lane`);
  if (asynchronous) {
    const active = host.activeUnitOfWork();
    const rowLane = lane ?? host.defaultLaneOf(command) ?? active?.lane ?? LIVE_LANE;
    // The id of this command, or of the earlier one holding its idempotency key (nothing queued then).
    const commandId = await enqueueCommand(host, command, deliverAt, { key, recordOutcome: key !== null || waitMs !== null }, rowLane);
    return waitMs === null ? commandId : awaitOutcome(outcomesOf(host, command), name, commandId, waitMs);
  }
  const binding = commandHandlerFor(host, type);
  if (!binding) throw new HandlerNotFoundError(type, host.domainName);
  const context = contextOf(command._metadata);
  const run = () => invokeHandler(binding.cls, binding.methods[0]!, command);
  // The command's own lane option applies to a unit it starts; inside another unit, that unit's lane holds.
  const unitLane = lane ?? (host.activeUnitOfWork() ? undefined : host.defaultLaneOf(command));
  if (key === null) return host.unitOfWork(run, context, unitLane);
  return processOnce(host, command, key, run, waitMs ?? DEFAULT_REUSED_KEY_WAIT_MS, unitLane);
}

/**
 * Sync with an idempotency key: the claim, the handler and its outcome share one unit of work,
 * so a concurrent command with the same key waits for it and then finds its outcome. A refusal
 * rolls the unit back; it is recorded afterwards, so the key gives the same refusal again.
 */
async function processOnce(
  host: CommandProcessingHost,
  command: BaseCommand,
  key: string,
  run: () => Promise<unknown>,
  waitMs: number,
  lane: string | undefined,
): Promise<unknown> {
  const database = host.commandDatabase(command);
  const store = host.provider(database).commandOutcomes;
  const claim = { commandId: command._metadata!.headers.id, commandType: command._metadata!.headers.type, idempotencyKey: key };
  const name = command.constructor.name;
  let earlier: CommandOutcomeRecord | undefined;
  try {
    const result = await host.unitOfWork(
      async () => {
        const tx = await host.activeUnitOfWork()!.transactionFor(database);
        const claimed = await store.claim(tx, claim);
        if (!claimed.claimed) {
          earlier = claimed.existing;
          return undefined;
        }
        const value = await run();
        await store.complete(tx, claim.commandId, succeeded(value, name));
        return value;
      },
      contextOf(command._metadata),
      lane,
    );
    if (!earlier) return result;
  } catch (error) {
    if (isPermanentError(error)) await recordRefusal(host, database, claim, error);
    throw error;
  }
  const reused = earlier as CommandOutcomeRecord;
  const outcome = settle(reused, name);
  return outcome.settled ? outcome.result : awaitOutcome(store, name, reused.commandId, waitMs);
}

async function recordRefusal(
  host: CommandProcessingHost,
  database: string,
  claim: { commandId: string; commandType: string; idempotencyKey: string },
  error: unknown,
): Promise<void> {
  const store = host.provider(database).commandOutcomes;
  await host.unitOfWork(async () => {
    const tx = await host.activeUnitOfWork()!.transactionFor(database);
    // Another command may have taken the key since the rollback: then that one's outcome counts.
    if ((await store.claim(tx, claim)).claimed) await store.complete(tx, claim.commandId, refused(error));
  }, {});
}

function outcomesOf(host: CommandProcessingHost, command: BaseCommand): CommandOutcomeStore {
  return host.provider(host.commandDatabase(command)).commandOutcomes;
}

/** Whether `domain.process(command, options)` queues the command through the outbox. */
export function processesAsynchronously(mode: ProcessingMode, options: ProcessOptions): boolean {
  return options.deliverAt !== undefined || (options.asynchronous ?? mode === 'async');
}

/** The one command handler binding for `type`, or undefined. */
export function commandHandlerFor(host: Pick<CommandProcessingHost, 'handlersFor'>, type: string): HandlerBinding | undefined {
  return host.handlersFor(type).find((binding) => binding.record.kind === 'commandHandler' && binding.methods.length > 0);
}

async function enqueueCommand(
  host: CommandProcessingHost,
  command: BaseCommand,
  deliverAt: Date | undefined,
  outcome: { key: string | null; recordOutcome: boolean },
  lane: string,
): Promise<string> {
  if (!host.outboxEnabled) throw new AsyncCommandsNeedOutboxError(command.constructor.name);
  const metadata = command._metadata!;
  // The extension tells the handler to record the outcome; it is set before the checksum is taken.
  const envelope = outcome.recordOutcome
    ? serializeMessage({ toPlain: () => command.toPlain(), _metadata: { ...metadata, extensions: { ...metadata.extensions, [OUTCOME_EXTENSION]: true } } })
    : serializeMessage(command);
  const immediate = commandOutboxRow(envelope, host.outboxConfig, lane);
  const row = deliverAt ? { ...immediate, partitionKey: deferredPartitionKey(immediate), deliverAt } : immediate;
  const commandId = envelope.metadata.headers.id;
  // The command's aggregate's database: inside a handler, the row commits with its effects.
  const database = host.commandDatabase(command);
  const provider = host.provider(database);
  let earlier: string | undefined;
  await host.unitOfWork(async () => {
    const uow = host.activeUnitOfWork()!;
    const tx = await uow.transactionFor(database);
    if (outcome.recordOutcome) {
      const claimed = await provider.commandOutcomes.claim(tx, { commandId, commandType: metadata.headers.type, idempotencyKey: outcome.key });
      if (!claimed.claimed) {
        earlier = claimed.existing.commandId;
        return;
      }
    }
    await provider.outbox.append(tx, [row]);
  }, contextOf(command._metadata));
  return earlier ?? commandId;
}
