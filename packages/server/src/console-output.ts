/**
 * Libraries write to the console now and then (ioredis's "[WARN] Redis server does not require
 * a password"), and so may a handler. In a server those would be raw lines between the JSON
 * records; this turns each console call into one record of the `console` logger at the matching
 * level, with URIs masked like every record.
 */
import { format } from 'node:util';
import type { Logger } from '@protean-ts/core';

const LEVELS = { debug: 'debug', log: 'info', info: 'info', warn: 'warn', error: 'error' } as const;
type ConsoleMethod = keyof typeof LEVELS;

/** Routes console.debug/log/info/warn/error to `logger`; returns a function that restores them. */
export function logConsoleOutput(logger: Logger): () => void {
  const originals = new Map<ConsoleMethod, (...args: unknown[]) => void>();
  for (const method of Object.keys(LEVELS) as ConsoleMethod[]) {
    originals.set(method, console[method]);
    console[method] = (...args: unknown[]) => logger.log(LEVELS[method], format(...args));
  }
  return () => {
    for (const [method, original] of originals) console[method] = original;
  };
}
