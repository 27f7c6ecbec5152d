/**
 * Renders a configuration for people: TOML in the same shape as domain.toml (so the output of
 * `protean-ts config check` can be pasted back), or JSON. Secrets are masked first.
 */
import { stringify } from 'smol-toml';
import type { DomainConfig } from './config-types.js';
import { maskSecrets } from './mask-secrets.js';

export function formatConfig(config: DomainConfig, format: 'toml' | 'json'): string {
  const masked = maskSecrets(config) as unknown as Record<string, unknown>;
  return format === 'json' ? `${JSON.stringify(masked, null, 2)}\n` : `${stringify(masked)}\n`;
}
