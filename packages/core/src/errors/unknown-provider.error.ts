/**
 * Thrown at `domain.init()` when `[databases.<name>]` or `[brokers.<name>]` asks for a
 * provider no adapter has registered; it names the key and the providers that do exist.
 */
export class UnknownProviderError extends Error {
  constructor(
    /** `databases` or `brokers`. */
    readonly section: 'databases' | 'brokers',
    readonly entry: string,
    readonly provider: string,
    readonly known: readonly string[],
  ) {
    super(
      `[${section}.${entry}] provider = "${provider}" is unknown; known providers: ${known.join(', ')}. Check the spelling, or import the adapter package that registers "${provider}"`,
    );
    this.name = 'UnknownProviderError';
  }
}
