/** Thrown when a message is appended to the outbox twice for the same broker (each message is relayed once per broker). */
export class DuplicateOutboxMessageError extends Error {
  constructor(
    readonly messageId: string,
    readonly targetBroker: string,
  ) {
    super(`Message ${messageId} is already in the outbox for broker "${targetBroker}"; each message is written once per broker`);
    this.name = 'DuplicateOutboxMessageError';
  }
}
