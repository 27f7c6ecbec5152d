/**
 * `protean-ts observatory`: a web dashboard of a running domain, read from its databases and
 * brokers (so it watches any server, however many workers it runs): the domain's map, live
 * message flow, the outbox, subscriptions with their dead letters, and a message's journey by
 * correlation id. It listens on 127.0.0.1 unless told otherwise (listen-address.ts says why);
 * beyond loopback every API request needs the start's access token (request-guard.ts).
 */
import { getLogger } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CommandGroup } from './command-group.js';
import { checkListenHost, isLoopbackHost } from '../observatory/listen-address.js';
import { generateToken, isWildcard } from '../observatory/request-guard.js';

export const DEFAULT_OBSERVATORY_PORT = 9000;

interface ObservatoryCommandOptions {
  port: number;
  host: string;
  allowRemote?: boolean;
  allowedHost: string[];
  token?: string;
  refresh: number;
}

/** The access token from the environment, so it stays out of the process list. */
export const OBSERVATORY_TOKEN_VARIABLE = 'PROTEAN_OBSERVATORY_TOKEN';

export const registerObservatoryCommands: CommandGroup = (program, context) => {
  program
    .command('observatory')
    .description(
      'Serve a live web dashboard of the domain (map, message catalog, message flow, outbox, subscriptions, dead letters, journeys) until SIGINT/SIGTERM',
    )
    .option('--port <port>', 'TCP port (0 picks a free one)', port, DEFAULT_OBSERVATORY_PORT)
    .option('--host <address>', 'address to listen on; only loopback addresses unless --allow-remote', '127.0.0.1')
    .option('--allow-remote', 'listen on a non-loopback --host: the dashboard has no authentication and can retry, replay and purge')
    .option('--allowed-host <name>', 'another host name the dashboard is reached by (a reverse proxy, a DNS name); repeatable', collect, [])
    .option(
      '--token <token>',
      `access token every API request must carry (default: ${OBSERVATORY_TOKEN_VARIABLE}, else a random one per start beyond loopback, none on loopback)`,
    )
    .option('--refresh <seconds>', 'how often open pages get fresh numbers (0.5 to 60)', refresh, 2)
    .action(async (options: ObservatoryCommandOptions) => {
      checkListenHost(options.host, options.allowRemote === true);
      const chosenToken = options.token ?? context.env[OBSERVATORY_TOKEN_VARIABLE];
      if (chosenToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(chosenToken))
        throw new CliError(
          `observatory: the access token (--token or ${OBSERVATORY_TOKEN_VARIABLE}) must be at least 16 printable characters without spaces`,
          ExitCode.USAGE,
        );
      const remote = !isLoopbackHost(options.host);
      const token = chosenToken ?? (remote ? generateToken() : null);
      const domain = await context.initDomain();
      const logger = getLogger('observatory');
      // Loaded here, not at the top: the dashboard reads PostgreSQL through MikroORM, whose
      // modules every other command's start-up would otherwise pay for (about 0.4 s of CPU).
      const { startObservatory } = await import('../observatory/observatory-server.js');
      let observatory;
      try {
        observatory = await startObservatory({
          domain,
          module: context.locateDomain().file,
          host: options.host,
          port: options.port,
          refreshMs: Math.round(options.refresh * 1000),
          allowedHosts: options.allowedHost,
          token,
          onRefused: (refusal) => logger.warn(`observatory refused a request: ${refusal.error}`, refusal),
          onError: (error) => logger.warn("observatory could not read the domain's state", { error: error instanceof Error ? error.message : String(error) }),
        });
      } catch (error) {
        await domain.close();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new CliError(`observatory: ${options.host}:${options.port} is in use; choose another --port (0 picks a free one)`, ExitCode.FAILURE, {
            cause: error,
          });
        if (code === 'EADDRNOTAVAIL')
          throw new CliError(`observatory: ${options.host} is not an address of this machine; check --host`, ExitCode.FAILURE, { cause: error });
        throw error;
      }
      if (token === null) context.io.stdout(`observatory: ${observatory.url} (Ctrl-C to stop)\n`);
      else if (chosenToken === undefined) context.io.stdout(`observatory: ${observatory.url}?token=${token} (Ctrl-C to stop)\n`);
      else context.io.stdout(`observatory: ${observatory.url} (open ${observatory.url}?token=<your token> once; Ctrl-C to stop)\n`);
      if (remote)
        logger.warn(
          `observatory listens on ${isWildcard(options.host) ? `${options.host} (every interface)` : options.host}: anyone who reaches that address and has the access token can read the outbox, message payloads in dead letters and journeys, retry outbox rows and replay or purge dead letters. Keep the token secret and the address protected (a firewall, a VPN, a reverse proxy with TLS)`,
          { host: options.host, port: options.port, allowedHosts: options.allowedHost },
        );
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      context.io.stdout(`observatory: ${signal}, stopping\n`);
      await observatory.close();
      await domain.close();
    });
};

function collect(value: string, previous: string[]): string[] {
  if (value.trim() === '') throw new CliError('--allowed-host must not be empty', ExitCode.USAGE);
  return [...previous, value.trim()];
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port must be a whole number from 0 to 65535, got "${value}"`, ExitCode.USAGE);
  return n;
}

function refresh(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0.5 || n > 60) throw new CliError(`--refresh must be a number of seconds from 0.5 to 60, got "${value}"`, ExitCode.USAGE);
  return n;
}
