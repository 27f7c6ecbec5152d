/**
 * Thrown by `domain.process(command)` when no command handler method is registered for the
 * command's type (register one with `@domain.commandHandler` and `@handle(Command)`), and by
 * `domain.dispatch(query)` when no query handler answers the query (`@read(Query)`).
 */
export class HandlerNotFoundError extends Error {
  constructor(
    readonly messageType: string,
    readonly domainName: string,
    fix = 'add a method decorated with @handle(<command>) to a @domain.commandHandler class',
  ) {
    super(`No handler for ${messageType} in domain "${domainName}": ${fix}`);
    this.name = 'HandlerNotFoundError';
  }
}
