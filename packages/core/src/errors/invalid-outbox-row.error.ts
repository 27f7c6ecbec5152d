/** Thrown by `OutboxStore.append` when a row lacks a field or holds a wrong value; names the row and field. */
export class InvalidOutboxRowError extends Error {
  constructor(
    readonly index: number,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Outbox row #${index}: ${field} ${problem}`);
    this.name = 'InvalidOutboxRowError';
  }
}
