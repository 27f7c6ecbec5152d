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
  // No prototypes: PROTEAN_ENV=toString must find no table, not Object.prototype.toString.
  const base: Record<string, unknown> = Object.create(null);
  const overlays = new Map<string, Record<string, unknown>>();
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (!TOP_LEVEL_KEYS.includes(key) && isPlainObject(value)) overlays.set(key, value);
    else base[key] = value;
  }
  const defined = [...overlays.keys()];
  for (const name of defined) {
    // `[sever]` is almost certainly a typo of `[server]`, not an environment called "sever".
    const hint = suggestKey(name, TOP_LEVEL_KEYS);
    if (hint && name !== environment) {
      warnings.push(`table [${name}] is treated as an environment overlay (used when PROTEAN_ENV=${name}); did you mean \`${hint}\`?`);
    }
  }
  if (!environment) return { merged: base, environments: defined, warnings };
  const overlay = overlays.get(environment);
  if (!overlay) {
    warnings.push(
      `PROTEAN_ENV=${environment} but there is no [${environment}] table; using the base configuration` +
        (defined.length ? ` (environment tables: ${defined.join(', ')})` : ''),
    );
    return { merged: base, environments: defined, warnings };
  }
  return { merged: deepMerge(base, overlay), environments: defined, warnings };
}
