/**
 * What every command gets: the global options, output streams, and lazy, cached access to the
 * configuration and the domain, so each command file stays about its own work.
 */
import path from 'node:path';
import type { Domain, LoadedConfig } from '@protean-ts/core';
import { locateDomainModule, requireDomainModule, type DomainLocation } from './locate-domain.js';

export interface GlobalOptions {
  /** Module exporting the domain (`--domain`). */
  domain?: string;
  /** Explicit domain.toml (`--config`). */
  config?: string;
  verbose?: boolean;
}

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface CliContext {
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  readonly io: CliIO;
  globals(): GlobalOptions;
  /** Where the domain module is (--domain, else `module` in domain.toml); throws a CliError when neither. */
  locateDomain(): DomainLocation;
  /** Imports the domain module and returns its Domain, not yet initialised. Cached. */
  loadDomain(): Promise<Domain>;
  /**
   * loadDomain() followed by `domain.init()`, passing --config, or the domain.toml whose `module`
   * key named the domain (it may sit further up than the domain's own discovery reaches). Cached:
   * the first call's options apply. `connect: false` (the server) leaves databases and brokers
   * unconnected, for the caller to connect (and wait for).
   */
  initDomain(options?: { connect?: boolean }): Promise<Domain>;
  /**
   * The configuration as the domain would load it, without importing the domain: --config,
   * else discovery from the domain module's folder (when located), else from the working folder.
   * The adapter packages it names are imported first, so their keys are checked as at start.
   */
  loadConfig(): Promise<LoadedConfig>;
}

export function createCliContext(options: { globals: () => GlobalOptions; cwd?: string; env?: Record<string, string | undefined>; io?: CliIO }): CliContext {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const io = options.io ?? { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };
  let loaded: Promise<Domain> | undefined;
  let initialised: Promise<Domain> | undefined;

  const locateOptions = () => ({ domain: options.globals().domain, config: options.globals().config, cwd, env });
  const context: CliContext = {
    cwd,
    env,
    io,
    globals: options.globals,
    locateDomain: () => requireDomainModule(locateOptions()),
    // Imported on first use: commands that never need the domain skip its module graph.
    loadDomain: () =>
      (loaded ??= importAdapters().then(async () => {
        const { loadDomain } = await import('./load-domain.js');
        return loadDomain(context.locateDomain());
      })),
    initDomain: (init = {}) =>
      (initialised ??= context.loadDomain().then(async (domain) => {
        const configPath = initConfigPath(context.locateDomain());
        await domain.init({ ...(configPath ? { configPath } : {}), ...(init.connect === false ? { connect: false } : {}) });
        return domain;
      })),
    loadConfig: () => {
      const { config } = options.globals();
      const location = !config && options.globals().domain ? locateDomainModule(locateOptions()) : null;
      const from = config ? { configPath: path.resolve(cwd, config) } : { searchFrom: location ? path.dirname(location.file) : cwd };
      // Imported on first use, like the domain: a usage error or --help never needs @protean-ts/core.
      return import('@protean-ts/core').then(({ loadConfigWithAdapters }) => loadConfigWithAdapters({ ...from, env }));
    },
  };

  /** The domain.toml `domain.init()` is given: --config, or the one whose `module` key named the domain; else the domain discovers its own. */
  function initConfigPath(location: DomainLocation): string | null {
    const explicit = options.globals().config;
    return explicit ? path.resolve(cwd, explicit) : location.source === 'module key' ? location.configFile : null;
  }

  /**
   * Imports the adapter packages the configuration names (PostgreSQL, Redis, …) before the
   * domain module is: a TypeScript domain registers tsx, and every module imported after that
   * goes through tsx's loader thread (MikroORM's graph: 0.2 s more CPU). domain.init() imports
   * them anyway, from the same configuration; whatever fails here is left for it to report.
   */
  async function importAdapters(): Promise<void> {
    try {
      const location = context.locateDomain();
      const configPath = initConfigPath(location);
      const { loadConfigWithAdapters } = await import('@protean-ts/core');
      await loadConfigWithAdapters({ ...(configPath ? { configPath } : { searchFrom: path.dirname(location.file) }), env });
    } catch {
      // Reported by loadDomain() or domain.init(), as without this head start.
    }
  }

  return context;
}
