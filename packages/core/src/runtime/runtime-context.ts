/**
 * The two interfaces the runtime is built from: `RuntimeOwner`, what the runtime needs from its
 * Domain (so runtime/ never imports domain/), and `RuntimeContext`, what each part of the runtime
 * (units, repositories, command and message dispatch, committed-event hooks) needs from the
 * runtime that holds it, instead of the whole DomainRuntime.
 */
import type { ConfigOverrides } from '../config/load-config.js';
import type { DomainConfig } from '../config/config-types.js';
import type { Logger } from '../logging/logger.js';
import type { MessageTypeLookup } from '../messages/deserialize-message.js';
import type { Clock } from '../ports/clock.js';
import type { DatabaseProvider } from '../ports/database-provider.js';
import type { ElementRegistry } from '../registry/registry.js';

/** The Domain as the runtime sees it: its name, registry, message lookups (with upcasting) and options. */
export interface RuntimeOwner extends MessageTypeLookup {
  readonly name: string;
  /** Where domain.toml discovery starts. */
  readonly root: string | undefined;
  readonly options: { readonly config?: ConfigOverrides };
  readonly registry: ElementRegistry;
  /** The domain's clock (`domain.clock`), read at each use: tests may replace it. */
  readonly clock: Clock;
}

export interface RuntimeContext {
  readonly domainName: string;
  readonly registry: ElementRegistry;
  /** Deserializes envelopes into registered message classes (upcasting older events). */
  readonly messageTypes: MessageTypeLookup;
  readonly log: Logger;
  /** The loaded configuration; DomainNotInitializedError naming `operation` before `init()`. */
  require(operation: string): DomainConfig;
  /** The loaded configuration, or undefined (for hooks that must not throw once the domain closed). */
  loadedConfig(): DomainConfig | undefined;
  /** The configured database `name`; a ConfigError naming the fix when it is not configured. */
  provider(name: string): DatabaseProvider;
  /** The names of the configured databases. */
  databaseNames(): string[];
  readonly outboxEnabled: boolean;
  /** The domain's clock, read at each use. */
  readonly clock: Clock;
}
