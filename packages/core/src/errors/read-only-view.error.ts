/** Thrown when code writes through `domain.viewFor(P)`: views read; projectors write through `domain.repositoryFor(P)`. */
export class ReadOnlyViewError extends Error {
  constructor(
    readonly projection: string,
    readonly operation: string,
  ) {
    super(
      `domain.viewFor(${projection}) is read-only: ${operation}() is refused; a projector writes ${projection} through domain.repositoryFor(${projection}) in its @on methods`,
    );
    this.name = 'ReadOnlyViewError';
  }
}
