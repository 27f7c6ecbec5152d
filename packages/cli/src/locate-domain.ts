/**
 * Which module holds the domain: `--domain PATH`, else the top-level `module` key of the
 * domain.toml found from the working directory (or `--config`), relative to that file.
 * Locating never imports anything, so it is cheap enough to run before TypeScript is set up.
 */
import path from 'node:path';
import { discoverConfigFile, readConfigKey } from '@protean-ts/core/config';
import { CliError } from './cli-error.js';

export interface DomainLocation {
  /** Absolute path of the module. */
  file: string;
  /** Where the path came from, for error messages. */
  source: '--domain' | 'module key';
  /** The domain.toml that named it (for `module key`), or the one given with --config. */
  configFile: string | null;
}

export interface LocateOptions {
  domain?: string;
  config?: string;
  cwd: string;
  env: Record<string, string | undefined>;
}

/** The domain's module, or null when neither --domain nor a `module` key names one. */
export function locateDomainModule(options: LocateOptions): DomainLocation | null {
  const configFile = options.config ? path.resolve(options.cwd, options.config) : discoverConfigFile(options.cwd);
  if (options.domain) {
    return { file: path.resolve(options.cwd, options.domain), source: '--domain', configFile: options.config ? configFile : null };
  }
  if (!configFile) return null;
  const moduleKey = readConfigKey(configFile, 'module', { env: options.env });
  if (moduleKey === undefined) return null;
  if (typeof moduleKey !== 'string' || moduleKey.trim() === '') {
    throw new CliError(`${configFile}: \`module\` must be the path of the module exporting the domain, e.g. module = "src/domain.ts"`);
  }
  return { file: path.resolve(path.dirname(configFile), moduleKey), source: 'module key', configFile };
}

/** Like locateDomainModule, but a missing location is an error telling the user both ways to fix it. */
export function requireDomainModule(options: LocateOptions): DomainLocation {
  const location = locateDomainModule(options);
  if (location) return location;
  throw new CliError(
    'no domain to load: pass --domain path/to/domain.ts, or add `module = "path/to/domain.ts"` to domain.toml ' +
      `(searched for .domain.toml / domain.toml from ${options.cwd} and two parent folders)`,
  );
}
