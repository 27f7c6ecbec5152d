/** Thrown when a `[databases.<name>]` table with `provider = "postgresql"` has a bad value. */
import { maskText } from '@protean-ts/core';

export class PostgresSettingsError extends Error {
  override readonly name = 'PostgresSettingsError';

  constructor(
    readonly provider: string,
    readonly key: string,
    problem: string,
    value?: string,
  ) {
    const shown = value === undefined ? '' : ` (got "${maskText(value)}")`;
    // The whole message is masked too: a problem text may quote the value in another form.
    super(maskText(`[databases.${provider}] ${key} ${problem}${shown}`));
  }
}
