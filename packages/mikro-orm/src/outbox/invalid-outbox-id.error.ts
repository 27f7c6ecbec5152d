/** Thrown when a caller passes something that is not an outbox row id (a positive integer as text). */
export class InvalidOutboxIdError extends Error {
  constructor(readonly id: unknown) {
    super(`Outbox row id ${JSON.stringify(id)} is not an id: pass the \`id\` string of a row returned by the store (digits only)`);
    this.name = 'InvalidOutboxIdError';
  }
}
