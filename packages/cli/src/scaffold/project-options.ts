/**
 * What `protean-ts new` is asked for, checked before anything is written: the project name (an
 * npm package name, which also names the folder) and the providers of the production overlay.
 */
import validateNpmPackageName from 'validate-npm-package-name';
import { CliError, ExitCode } from '../cli-error.js';

export const DATABASE_CHOICES = ['memory', 'postgresql'] as const;
export const BROKER_CHOICES = ['inline', 'redis'] as const;
export type DatabaseChoice = (typeof DATABASE_CHOICES)[number];
export type BrokerChoice = (typeof BROKER_CHOICES)[number];

export interface ProjectOptions {
  /** The package name, e.g. `coffee-bar` or `@acme/coffee-bar`. */
  name: string;
  /** The folder it goes in: the name without its scope. */
  folder: string;
  database: DatabaseChoice;
  broker: BrokerChoice;
}

export function projectOptions(name: string, database: string, broker: string): ProjectOptions {
  const verdict = validateNpmPackageName(name);
  if (!verdict.validForNewPackages) {
    const reasons = [...(verdict.errors ?? []), ...(verdict.warnings ?? [])].join('; ');
    throw new CliError(
      `project name "${name}" is not a valid npm package name (${reasons}); use lowercase letters, digits and dashes, e.g. "coffee-bar"`,
      ExitCode.USAGE,
    );
  }
  const db = choice('--database', database, DATABASE_CHOICES);
  const br = choice('--broker', broker, BROKER_CHOICES);
  if (db === 'memory' && br === 'redis') {
    // The server is another process: it cannot read an outbox kept in the command process's memory.
    throw new CliError(
      '--database memory with --broker redis: a memory database lives inside one process, so `protean-ts server` ' +
        'could never read the events it stores; use --database postgresql with --broker redis, or --broker inline',
      ExitCode.USAGE,
    );
  }
  return { name, folder: name.replace(/^@[^/]+\//, ''), database: db, broker: br };
}

function choice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new CliError(`${flag} must be one of ${choices.join(', ')}, got "${value}"`, ExitCode.USAGE);
}
