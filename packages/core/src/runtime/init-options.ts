/** What `domain.init()` accepts. */
import type { ConfigOverrides } from '../config/load-config.js';

export interface InitOptions {
  /** An explicit domain.toml; default: discovered from the domain's `root`. */
  configPath?: string;
  /** Configuration (domain.toml shape, snake_case) merged over the file and the Domain's `config` option. */
  config?: ConfigOverrides;
  /**
   * False: create the databases and brokers but do not connect them yet (they connect on first
   * use, or when the caller calls their `connect()`). `protean-ts server` uses it to read the
   * configuration first and then wait for services that are still coming up. Default true.
   */
  connect?: boolean;
}
