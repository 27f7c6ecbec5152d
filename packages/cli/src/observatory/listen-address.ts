/**
 * Where the observatory may listen. Its buttons act (outbox retry, dead-letter replay and purge),
 * so it answers on the loopback interface only unless the operator says otherwise with
 * `--allow-remote`; beyond loopback every API request then needs the start's access token.
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
    `observatory: refusing to listen on ${host}: its pages show message payloads and can retry outbox rows and replay or ` +
      'purge dead letters. Keep the default 127.0.0.1 (reach it through an SSH tunnel), or pass --allow-remote: every ' +
      'request then needs an access token (printed with the URL, or --token / PROTEAN_OBSERVATORY_TOKEN), and the ' +
      'address should still be protected (a firewall, a VPN, a reverse proxy with TLS)',
    ExitCode.USAGE,
  );
}
