/**
 * For a queued command whose sender waits for its outcome (`awaitOutcome` or an idempotency
 * key): the handler's result is recorded in its own transaction, and a permanent refusal on its
 * own after that transaction rolled back (a transient failure is retried by the subscription,
 * so it is no outcome yet).
 */
import { isPermanentError } from '../errors/permanent-error.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import { OUTCOME_EXTENSION, refused, succeeded } from '../processing/command-outcomes.js';
import type { BindingInvoker } from '../processing/message-handling.js';
import type { RuntimeContext } from './runtime-context.js';
import type { RuntimeUnits } from './runtime-surface.js';

/** A queued command whose sender asked for its outcome. */
export function recordsOutcome(envelope: MessageEnvelope): boolean {
  return envelope?.metadata?.domain?.kind === 'COMMAND' && envelope.metadata.extensions?.[OUTCOME_EXTENSION] === true;
}

/** `invoke`, recording the outcome of `envelope`'s command in `database`. */
export function invokeRecordingOutcome(
  context: RuntimeContext,
  units: RuntimeUnits,
  invoke: BindingInvoker,
  envelope: MessageEnvelope,
  database: string,
): BindingInvoker {
  const commandId = envelope.metadata.headers.id;
  return async (binding, method, message) => {
    const outcomes = context.provider(database).commandOutcomes;
    const name = binding.record.kind === 'commandHandler' ? (message as object).constructor.name : envelope.metadata.headers.type;
    let result: unknown;
    try {
      result = await invoke(binding, method, message);
    } catch (error) {
      if (isPermanentError(error)) await outcomes.complete(null, commandId, refused(error));
      throw error;
    }
    const tx = await units.active()!.transactionFor(database);
    await outcomes.complete(tx, commandId, succeeded(result, name));
    return result;
  };
}
