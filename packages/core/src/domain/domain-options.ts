/** Options of `new Domain(name, options)`. */
import type { ConfigOverrides } from '../config/load-config.js';
import type { Clock } from '../ports/clock.js';

export interface DomainOptions {
  /** Where domain.toml discovery starts: a file URL (`import.meta.url`) or a path. Default: the working directory. */
  root?: string;
  /**
   * Generates identities of new aggregates and entities instead of uuid v4. Used when given;
   * `identity_strategy = "function"` in domain.toml requires it.
   */
  identityFunction?: () => string;
  /** Configuration (domain.toml shape, snake_case) merged over the file's, e.g. in tests. */
  config?: ConfigOverrides;
  /** The time the domain and its server decide timeouts, retention and retries by. Default: the system clock. */
  clock?: Clock;
}
