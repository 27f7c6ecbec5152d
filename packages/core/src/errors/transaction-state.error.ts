/**
 * Thrown when a transaction or unit of work is used after it finished (committed or rolled
 * back), or a transaction is handed to a provider that did not open it.
 */
export class TransactionStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransactionStateError';
  }
}
