/**
 * A worker id unique across processes and restarts (`<host>-<pid>-<random>`): claims are locked
 * under it, so a restarted process never mistakes its predecessor's locks for its own.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export function newWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
