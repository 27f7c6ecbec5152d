/** Thrown when the runtime is used before `await domain.init()` (or after `domain.close()`). */
export class DomainNotInitializedError extends Error {
  constructor(
    readonly domainName: string,
    readonly operation: string,
  ) {
    super(`Domain "${domainName}" is not initialized: call "await domain.init()" before ${operation}`);
    this.name = 'DomainNotInitializedError';
  }
}
