/** Configuration: loading, defaults, validation and masking of domain.toml. */
export type * from './config-types.js';
export {
  loadConfig,
  loadConfigWithAdapters,
  readConfigFile,
  readConfigKey,
  type LoadConfigOptions,
  type LoadedConfig,
  type ConfigOverrides,
  type ConfigFileValues,
} from './load-config.js';
export { defaultConfig, DATABASE_ENTRY_DEFAULTS, FLOW_CONTROL_DEFAULTS } from './defaults.js';
export { ConfigError, type ConfigProblem } from './config-error.js';
export { discoverConfigFile, CONFIG_FILE_NAMES, CONFIG_SEARCH_PARENTS } from './discover-config-file.js';
export { validateConfig, type ValidateOptions, type ValidationResult } from './validate-config.js';
export {
  CONFIG_SCHEMA,
  TOP_LEVEL_KEYS,
  CONNECTION_KEYS,
  MAX_TIMER_MS,
  MAX_TIMER_SECONDS,
  MAX_RETENTION_HOURS,
  MAX_COUNT,
  type KeySpec,
  type ProviderSection,
} from './config-schema.js';
export { BUILTIN_PROVIDERS, type KnownProviders, type ProviderSettingsSpec } from './known-providers.js';
export { maskSecrets, maskText, maskUri, describeValue } from './mask-secrets.js';
export { outboxEnabled } from './outbox-enabled.js';
export { formatConfig } from './format-config.js';
