/** Thrown by `repository.get(id)` when no aggregate with that identity is stored. */
export class ObjectNotFoundError extends Error {
  constructor(
    readonly aggregate: string,
    readonly id: string,
  ) {
    super(`${aggregate} with id "${id}" does not exist`);
    this.name = 'ObjectNotFoundError';
  }
}
