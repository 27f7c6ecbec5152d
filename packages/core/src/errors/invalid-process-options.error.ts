/** `domain.process(cmd, options)` with options that are malformed or do not fit together. */
export class InvalidProcessOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidProcessOptionsError';
  }
}
