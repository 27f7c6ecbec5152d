/**
 * Where the outcome of a command is kept so that its sender can learn it from another process:
 * a record claimed when the command is sent (pending), and completed by whoever handles it, in
 * the handler's own transaction, with its result or the error that refused it. A command sent
 * with an idempotency key claims that key too: a second command with the same key finds the
 * first one's record instead of running again.
 */
import type { ProviderTransaction } from './provider-transaction.js';

export type CommandOutcomeStatus = 'pending' | 'succeeded' | 'refused';

export interface CommandOutcomeRecord {
  commandId: string;
  /** `<Domain>.<Class>.v<N>` of the command. */
  commandType: string;
  idempotencyKey: string | null;
  status: CommandOutcomeStatus;
  /** The handler's result, as JSON (undefined becomes null). */
  result: unknown;
  /** The refusing error's class name (`error.name`) and message. */
  errorName: string | null;
  errorMessage: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

export interface CommandClaim {
  commandId: string;
  commandType: string;
  idempotencyKey: string | null;
}

/** `claimed`: this command holds the record; `taken`: its idempotency key belongs to an earlier command. */
export type ClaimResult = { claimed: true } | { claimed: false; existing: CommandOutcomeRecord };

export type CommandOutcome = { status: 'succeeded'; result: unknown } | { status: 'refused'; errorName: string; errorMessage: string };

export interface CommandOutcomeCleanup {
  /** Records created before this go, whatever their status. */
  before: Date;
  batchSize: number;
}

export interface CommandOutcomeStore {
  /**
   * In `tx`: records the command as pending. With an idempotency key held by another command,
   * nothing is recorded and that command's record is returned; a concurrent claim of the same key
   * waits until the first transaction ends (it then sees the record, or the key free again).
   */
  claim(tx: ProviderTransaction, claim: CommandClaim): Promise<ClaimResult>;
  /**
   * Records the outcome of a claimed command: in `tx` (the handler's transaction, so the result
   * commits with the handler's effects), or on its own when null (a refusal, after the handler's
   * transaction rolled back). A success replaces a refusal (a later retry that succeeded); a
   * refusal never replaces a success. Returns false when the command has no record (nobody asked).
   */
  complete(tx: ProviderTransaction | null, commandId: string, outcome: CommandOutcome): Promise<boolean>;
  /** The record of a command, or null. */
  get(commandId: string): Promise<CommandOutcomeRecord | null>;
  /** Deletes records older than `before` in one bounded batch; returns how many went. */
  cleanup(options: CommandOutcomeCleanup): Promise<number>;
}
