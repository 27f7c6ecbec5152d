/**
 * Thrown when an upcaster's `upcast` throws: names the upcaster, the stored event's type and the
 * version step it was taking and, once a reader of the event store adds it (`at`), the stream and
 * position of the stored event, so the event that breaks the upcaster can be found and read.
 */
export class UpcasterFailedError extends Error {
  constructor(
    readonly upcaster: string,
    readonly storedType: string,
    readonly fromVersion: number,
    readonly toVersion: number,
    override readonly cause: unknown,
    readonly stream?: string,
    readonly position?: number,
  ) {
    const where = stream === undefined ? '' : ` at stream ${stream} position ${String(position)}`;
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`Upcaster ${upcaster} (v${fromVersion} → v${toVersion}) threw on stored event "${storedType}" (version ${fromVersion})${where}: ${why}`, { cause });
    this.name = 'UpcasterFailedError';
  }

  /** The same failure, naming where the stored event is. */
  at(stream: string, position: number): UpcasterFailedError {
    return new UpcasterFailedError(this.upcaster, this.storedType, this.fromVersion, this.toVersion, this.cause, stream, position);
  }
}
