/**
 * `protean-ts observatory`: a web dashboard of a running domain, read from its databases and
 * brokers (so it watches any server, however many workers it runs): the domain's map, live
 * message flow, the outbox, subscriptions with their dead letters, and a message's journey by
 * correlation id. It listens on 127.0.0.1 unless told otherwise (listen-address.ts says why).
 */
import { getLogger } from '@protean-ts/core';
import { CliError, ExitCode } from '../cli-error.js';
import type { CommandGroup } from './command-group.js';
import { checkListenHost } from '../observatory/listen-address.js';
import { startObservatory } from '../observatory/observatory-server.js';

export const DEFAULT_OBSERVATORY_PORT = 9000;

interface ObservatoryCommandOptions {
  port: number;
  host: string;
  allowRemote?: boolean;
  refresh: number;
}

export const registerObservatoryCommands: CommandGroup = (program, context) => {
  program
    .command('observatory')
    .description('Serve a live web dashboard of the domain (map, message flow, outbox, subscriptions, dead letters, journeys) until SIGINT/SIGTERM')
    .option('--port <port>', 'TCP port (0 picks a free one)', port, DEFAULT_OBSERVATORY_PORT)
    .option('--host <address>', 'address to listen on; only loopback addresses unless --allow-remote', '127.0.0.1')
    .option('--allow-remote', 'listen on a non-loopback --host: the dashboard has no authentication and can retry, replay and purge')
    .option('--refresh <seconds>', 'how often open pages get fresh numbers (0.5 to 60)', refresh, 2)
    .action(async (options: ObservatoryCommandOptions) => {
      checkListenHost(options.host, options.allowRemote === true);
      const domain = await context.initDomain();
      const logger = getLogger('observatory');
      let observatory;
      try {
        observatory = await startObservatory({
          domain,
          module: context.locateDomain().file,
          host: options.host,
          port: options.port,
          refreshMs: Math.round(options.refresh * 1000),
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
      context.io.stdout(`observatory: ${observatory.url} (Ctrl-C to stop)\n`);
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      context.io.stdout(`observatory: ${signal}, stopping\n`);
      await observatory.close();
      await domain.close();
    });
};

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
