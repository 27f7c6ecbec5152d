/**
 * Where the observatory may listen. It has no authentication and its buttons act (outbox retry,
 * dead-letter replay and purge), so it answers on the loopback interface only unless the
 * operator says otherwise with `--allow-remote`.
 */
import { isIP } from 'node:net';
import { CliError, ExitCode } from '../cli-error.js';

export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

/** Throws a usage error for a host off the loopback interface unless `allowRemote`. */
export function checkListenHost(host: string, allowRemote: boolean): void {
  if (host.trim() === '') throw new CliError('--host must not be empty; leave it out to listen on 127.0.0.1', ExitCode.USAGE);
  if (isLoopbackHost(host) || allowRemote) return;
  throw new CliError(
    `observatory: refusing to listen on ${host}: the observatory has no authentication and its pages can retry outbox rows and ` +
      'replay or purge dead letters, so anyone who reaches the address could do so. Keep the default 127.0.0.1 (reach it ' +
      'through an SSH tunnel), or pass --allow-remote if the address is protected some other way',
    ExitCode.USAGE,
  );
}
