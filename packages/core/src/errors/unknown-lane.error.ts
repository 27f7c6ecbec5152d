/** A message was given a lane that `[outbox.lanes] names` does not list (nor `live`). */
export class UnknownLaneError extends Error {
  constructor(
    readonly lane: unknown,
    readonly known: readonly string[],
    where: string,
  ) {
    super(
      `${where}: unknown lane ${JSON.stringify(lane)}; use one of ${known.map((name) => `"${name}"`).join(', ')}, ` +
        'or add it to [outbox.lanes] names in domain.toml',
    );
    this.name = 'UnknownLaneError';
  }
}
