/** Thrown when something handed over as a message envelope lacks the `{ data, metadata }` shape. */
export class MalformedEnvelopeError extends Error {
  constructor(readonly problem: string) {
    super(`Not a message envelope: ${problem}; expected { data, metadata: { headers: { id, type, ... }, envelope, domain, extensions } }`);
    this.name = 'MalformedEnvelopeError';
  }
}
