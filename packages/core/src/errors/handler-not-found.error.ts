/**
 * Thrown by `domain.process(command)` when no command handler method is registered for the
 * command's type: register one with `@domain.commandHandler` and `@handle(Command)`.
 */
export class HandlerNotFoundError extends Error {
  constructor(
    readonly messageType: string,
    readonly domainName: string,
  ) {
    super(`No handler for ${messageType} in domain "${domainName}": add a method decorated with @handle(<command>) to a @domain.commandHandler class`);
    this.name = 'HandlerNotFoundError';
  }
}
