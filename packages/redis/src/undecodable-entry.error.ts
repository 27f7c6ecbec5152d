/**
 * Why a stream entry was moved to the dead-letter stream instead of being delivered: it holds
 * no protean-ts message envelope. Its text is stored as the dead letter's `error`.
 */
export class UndecodableEntryError extends Error {
  constructor(
    readonly stream: string,
    readonly group: string,
    readonly entryId: string,
    readonly problem: string,
    /** What the broker reads (its message_format decides): see RedisEntryFormat.expects. */
    expects: string,
  ) {
    super(
      `Stream entry ${entryId} of stream "${stream}" (group "${group}") cannot be decoded: ${problem}. ` +
        `protean-ts reads only ${expects}. ` +
        `The entry was moved to "${stream}:dlq" with its raw fields; fix the producer that wrote it, then remove it with \`protean-ts dlq purge ${stream}\`.`,
    );
    this.name = 'UndecodableEntryError';
  }
}
