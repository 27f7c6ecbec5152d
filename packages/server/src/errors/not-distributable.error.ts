/**
 * Thrown by `protean-ts server --workers N` (N > 1) when a database or broker lives inside one
 * process (memory database, inline broker): every worker would get its own private copy, so
 * events written by one would never reach the others. The message names each setting to change.
 */

export interface InProcessSetting {
  /** `[databases.default] provider` */
  key: string;
  provider: string;
  /** What to set instead. */
  fix: string;
}

export class NotDistributableError extends Error {
  constructor(
    readonly workers: number,
    readonly settings: readonly InProcessSetting[],
  ) {
    const lines = settings.map((s) => `  - ${s.key} = "${s.provider}" lives inside one process; ${s.fix}`);
    super(
      `--workers ${workers} needs infrastructure the workers can share, but:\n${lines.join('\n')}\n` +
        'Change these settings in domain.toml, or run a single process with --workers 1.',
    );
    this.name = 'NotDistributableError';
  }
}
