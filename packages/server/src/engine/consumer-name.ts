/**
 * The consumer name this process uses in every consumer group: host, pid and worker id, so
 * `XINFO CONSUMERS` (and the logs) show which process holds which pending message.
 */
import os from 'node:os';

export function consumerName(workerId: number | null, pid = process.pid): string {
  return `${os.hostname()}-${pid}${workerId === null ? '' : `-w${workerId}`}`;
}
