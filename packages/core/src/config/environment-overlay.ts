/**
 * Environment tables: any top-level table of domain.toml whose name is not a configuration key
 * (`[staging]`, `[production]`) is an overlay. `PROTEAN_ENV=staging` deep-merges `[staging]` over
 * the base; every environment table is then removed from the result.
 */
import { deepMerge } from './deep-merge.js';
import { TOP_LEVEL_KEYS } from './config-schema.js';
import { isPlainObject } from './substitute-env.js';
import { suggestKey } from './suggest-key.js';

export interface OverlayResult {
  merged: Record<string, unknown>;
  /** Names of the environment tables the file defines. */
  environments: string[];
  warnings: string[];
}

export function applyEnvironmentOverlay(raw: Record<string, unknown>, environment: string | undefined): OverlayResult {
  const base: Record<string, unknown> = {};
  const overlays: Record<string, Record<string, unknown>> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (!TOP_LEVEL_KEYS.includes(key) && isPlainObject(value)) overlays[key] = value;
    else base[key] = value;
  }
  for (const name of Object.keys(overlays)) {
    // `[sever]` is almost certainly a typo of `[server]`, not an environment called "sever".
    const hint = suggestKey(name, TOP_LEVEL_KEYS);
    if (hint && name !== environment) {
      warnings.push(`table [${name}] is treated as an environment overlay (used when PROTEAN_ENV=${name}); did you mean \`${hint}\`?`);
    }
  }
  if (!environment) return { merged: base, environments: Object.keys(overlays), warnings };
  const overlay = overlays[environment];
  if (!overlay) {
    const defined = Object.keys(overlays);
    warnings.push(`PROTEAN_ENV=${environment} but there is no [${environment}] table; using the base configuration`
      + (defined.length ? ` (environment tables: ${defined.join(', ')})` : ''));
    return { merged: base, environments: defined, warnings };
  }
  return { merged: deepMerge(base, overlay), environments: Object.keys(overlays), warnings };
}
