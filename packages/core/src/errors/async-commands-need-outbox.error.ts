/** Thrown when a command is processed asynchronously while the outbox, which carries it to the server, is off. */
export class AsyncCommandsNeedOutboxError extends Error {
  constructor(readonly command: string) {
    super(`${command} cannot be processed asynchronously: the outbox is off. Set enable_outbox = true (or server.default_subscription_type = "stream") in domain.toml, or process it synchronously`);
    this.name = 'AsyncCommandsNeedOutboxError';
  }
}
