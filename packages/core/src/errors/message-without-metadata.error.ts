/** Thrown when an event or command is serialized before it was raised or processed (it has no metadata yet). */
export class MessageWithoutMetadataError extends Error {
  constructor(readonly messageClass: string) {
    super(`${messageClass} has no metadata yet, so it cannot be serialized: raise it from an aggregate (events) or pass it to domain.process() (commands)`);
    this.name = 'MessageWithoutMetadataError';
  }
}
