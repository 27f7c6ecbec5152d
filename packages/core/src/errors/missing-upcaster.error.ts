/**
 * Thrown when a stored event's version has no chain of upcasters to the event's current version
 * (an upcaster was removed, or the event was stored by a newer deployment), so it cannot be
 * turned back into today's event class. The stored event is left as it is.
 */
export class MissingUpcasterError extends Error {
  constructor(
    readonly storedType: string,
    readonly eventName: string,
    readonly storedVersion: number,
    readonly currentVersion: number,
    readonly reachedVersion: number,
  ) {
    const fix =
      storedVersion > currentVersion
        ? `it was stored by a newer version of the application; deploy that version of ${eventName}`
        : `add @domain.upcaster({ event: ${eventName}, from: ${reachedVersion}, to: ... })`;
    const via = reachedVersion === storedVersion ? '' : ` (upcasters reach v${reachedVersion}, then stop)`;
    super(`Stored event "${storedType}" has no upcaster path from v${storedVersion} to ${eventName} v${currentVersion}${via}; ${fix}`);
    this.name = 'MissingUpcasterError';
  }
}
