/** Thrown when a command is processed asynchronously while the outbox, which carries it to the server, is off. */
export class AsyncCommandsNeedOutboxError extends Error {
  constructor(readonly command: string) {
    super(
      `${command} cannot be processed asynchronously: the outbox is off. Set enable_outbox = true in domain.toml (the default), or process it synchronously`,
    );
    this.name = 'AsyncCommandsNeedOutboxError';
  }
}
