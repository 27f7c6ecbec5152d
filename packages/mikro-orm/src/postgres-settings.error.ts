/** Thrown when a `[databases.<name>]` table with `provider = "postgresql"` has a bad value. */
import { maskUri } from '@protean-ts/core';

export class PostgresSettingsError extends Error {
  override readonly name = 'PostgresSettingsError';

  constructor(
    readonly provider: string,
    readonly key: string,
    problem: string,
    value?: string,
  ) {
    const shown = value === undefined ? '' : ` (got "${maskUri(value)}")`;
    super(`[databases.${provider}] ${key} ${problem}${shown}`);
  }
}
