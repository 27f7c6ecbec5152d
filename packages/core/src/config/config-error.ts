/**
 * The one error type of configuration loading. It carries every problem found (not just the
 * first), each with its key path, so a user fixes domain.toml in one pass. Messages are masked
 * here, the one place every problem passes, so no value echoed by a check can leak a secret.
 */
import { maskText } from './mask-secrets.js';

export interface ConfigProblem {
  /** Dotted key path, e.g. `server.health.port`; empty for file-level problems. */
  path: string;
  message: string;
  /** 1-based line in the file, when known (syntax errors). */
  line?: number;
}

export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  /** The configuration file, or null when the problems come from defaults or overrides. */
  readonly file: string | null;

  /** `withOverrides`: programmatic overrides were merged too, so a problem may come from them. */
  constructor(problems: readonly ConfigProblem[], file: string | null, options: { cause?: unknown; withOverrides?: boolean } = {}) {
    const masked = problems.map((p) => ({ ...p, path: maskText(p.path), message: maskText(p.message) }));
    super(ConfigError.describe(masked, file, options.withOverrides === true), { cause: options.cause });
    this.name = 'ConfigError';
    this.problems = masked;
    this.file = file;
  }

  private static describe(problems: readonly ConfigProblem[], file: string | null, withOverrides: boolean): string {
    const where = file
      ? `${file}${withOverrides ? ' (with programmatic overrides)' : ''}`
      : 'the configuration (no domain.toml found; defaults and overrides only)';
    const lines = problems.map((p) => {
      const at = p.line !== undefined ? `line ${p.line}: ` : '';
      const key = p.path ? `${p.path}: ` : '';
      return `  - ${at}${key}${p.message}`;
    });
    const noun = problems.length === 1 ? 'problem' : 'problems';
    return `Invalid configuration in ${where} (${problems.length} ${noun}):\n${lines.join('\n')}`;
  }
}
