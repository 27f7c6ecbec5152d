/** Thrown when an upcaster's `upcast` returns something other than a plain data object. */
export class InvalidUpcastResultError extends Error {
  constructor(
    readonly upcaster: string,
    readonly storedType: string,
    readonly got: string,
  ) {
    super(`Upcaster ${upcaster} returned ${got} for stored event "${storedType}"; upcast(data, metadata) must return the event's data as an object`);
    this.name = 'InvalidUpcastResultError';
  }
}
