/**
 * A message taken on trust as its key's next (its checkpoint to move, checked, with the commit)
 * was not: another worker or an earlier delivery had moved the key. The transaction did not
 * commit, so nothing of the handler's work was kept; the message runs again with the inbox
 * deciding before the handler (the inbox's unit of work does this itself).
 */
export class InboxCheckpointMovedError extends Error {
  override readonly name = 'InboxCheckpointMovedError';

  constructor(
    readonly subscription: string,
    readonly keys: readonly string[],
    why: string,
  ) {
    super(
      `the inbox of subscription "${subscription}" could not advance key(s) ${keys.map((k) => JSON.stringify(k)).join(', ')} at the commit: ${why}; ` +
        'the transaction rolls back and its messages are handled again with the inbox checked first (nothing is lost or handled twice)',
    );
  }
}
