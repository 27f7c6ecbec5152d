/**
 * A message a batched transaction took on trust as its key's next (its checkpoint to move,
 * checked, with the batch's commit) was not: another worker or an earlier delivery had moved the
 * key. The batch did not commit, so nothing of it was kept; the subscription runs each of its
 * messages again alone, where the inbox decides before the handler.
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
        'the batch rolls back and each of its messages is handled again alone, the inbox checked first (nothing is lost or handled twice)',
    );
  }
}
