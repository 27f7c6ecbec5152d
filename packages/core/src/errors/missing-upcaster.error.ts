/**
 * Thrown when a stored event of an older version has no chain of upcasters to the event's current
 * version (a step was never written, or was removed), so it cannot be turned back into today's
 * event class. The stored event is left as it is.
 */
export class MissingUpcasterError extends Error {
  constructor(
    readonly storedType: string,
    readonly eventName: string,
    readonly storedVersion: number,
    readonly currentVersion: number,
    readonly reachedVersion: number,
  ) {
    const via = reachedVersion === storedVersion ? '' : ` (upcasters reach v${reachedVersion}, then stop)`;
    super(
      `Stored event "${storedType}" has no upcaster path from v${storedVersion} to ${eventName} v${currentVersion}${via}; add @domain.upcaster({ event: ${eventName}, from: ${reachedVersion}, to: ... })`,
    );
    this.name = 'MissingUpcasterError';
  }
}
