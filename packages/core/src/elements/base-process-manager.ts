/**
 * A process manager coordinates a long-running process across aggregates: it reacts to their
 * events (`@handle(Event, { start, correlate, end })`), keeps its own state between them, issues
 * commands (`this.send`) and schedules durable timeouts (`this.scheduleTimeout`). Its state is
 * its own enumerable fields (plain JSON data), stored after each handled event; see
 * docs/process-managers.md.
 */
import type { BaseCommand } from './base-command.js';
import type { BaseEvent } from './base-event.js';
import { ProcessManagerUsageError } from '../errors/process-manager-usage.error.js';

/** What a handler of a manager may ask for while it runs; supplied by the runtime per message. */
export interface ProcessManagerSession {
  send(command: BaseCommand, options?: { deliverAt?: Date }): void;
  scheduleTimeout(event: BaseEvent, options: { after: number | string } | { at: Date }): void;
  markAsComplete(): void;
}

export const PROCESS_MANAGER_SESSION = Symbol('protean:processManagerSession');

export abstract class BaseProcessManager {
  /** Issues `command` through the domain: written to the outbox in the transaction that stores this manager's new state. */
  protected send(command: BaseCommand, options?: { deliverAt?: Date }): void {
    this.session('send').send(command, options);
  }

  /**
   * Delivers `event` back to this manager (and any other subscriber of its stream) once the time
   * has come: `{ after: '15m' }` (a number of ms, or '500ms', '30s', '15m', '2h') or `{ at: date }`.
   * Stored in the outbox with the state change; cancelled when the manager completes first.
   */
  protected scheduleTimeout(event: BaseEvent, options: { after: number | string } | { at: Date }): void {
    this.session('scheduleTimeout').scheduleTimeout(event, options);
  }

  /** Ends the process after this handler: later events of this instance are ignored and its pending timeouts cancelled. */
  protected markAsComplete(): void {
    this.session('markAsComplete').markAsComplete();
  }

  private session(operation: string): ProcessManagerSession {
    const session = (this as unknown as Record<symbol, ProcessManagerSession | undefined>)[PROCESS_MANAGER_SESSION];
    if (!session) {
      throw new ProcessManagerUsageError(
        `${this.constructor.name}.${operation}() can only be called inside one of its @handle methods while the domain delivers an event to it`,
      );
    }
    return session;
  }
}
