/**
 * Thrown when a built-in provider's adapter package cannot be loaded (usually not installed):
 * names the package and how to install it.
 */
export class AdapterLoadError extends Error {
  constructor(
    readonly section: 'databases' | 'brokers',
    readonly entry: string,
    readonly provider: string,
    readonly packageName: string,
    options?: { cause?: unknown },
  ) {
    const detail = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      `[${section}.${entry}] provider = "${provider}" needs the package ${packageName}, which could not be loaded${detail}. Install it with: npm install ${packageName}`,
      options,
    );
    this.name = 'AdapterLoadError';
  }
}
