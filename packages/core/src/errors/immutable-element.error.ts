/**
 * Thrown when code assigns to a value object, event or command after creation: those are
 * values, so a change means creating a new one.
 */
export class ImmutableElementError extends Error {
  constructor(
    readonly element: string,
    readonly field: string,
  ) {
    super(`${element} is immutable: cannot assign "${field}"; create a new ${element} with ${element}.create({...}) instead`);
    this.name = 'ImmutableElementError';
  }
}
