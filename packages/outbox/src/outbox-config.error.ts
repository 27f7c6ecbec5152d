/** Thrown when an `[outbox]` setting cannot work; names the domain.toml key and what it needs. */
export class OutboxConfigError extends Error {
  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`outbox.${key} ${problem} (fix it in domain.toml)`);
    this.name = 'OutboxConfigError';
  }
}
