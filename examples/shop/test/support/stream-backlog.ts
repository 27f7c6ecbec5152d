/**
 * What is left in the broker: for every stream under the run's prefix, each consumer group's
 * pending (delivered, not acked) and lag (never delivered) counts, and any dead letters.
 * Read with raw Redis commands, independent of the broker adapter.
 */
import type { RedisNamespace } from './redis-namespace.js';

export interface StreamBacklog {
  /** `<stream> / <group>: <n> pending, <m> lag` for every group with anything left. */
  unfinished: string[];
  /** Dead-letter streams and their lengths. */
  deadLetters: Record<string, number>;
  /** Groups seen, `<stream>/<group>`. */
  groups: string[];
}

export async function readStreamBacklog(redis: RedisNamespace): Promise<StreamBacklog> {
  const backlog: StreamBacklog = { unfinished: [], deadLetters: {}, groups: [] };
  for (const stream of await redis.keys()) {
    const key = redis.prefix + stream;
    if ((await redis.client.type(key)) !== 'stream') continue;
    if (stream.endsWith(':dlq')) {
      backlog.deadLetters[stream] = await redis.client.xlen(key);
      continue;
    }
    const groups = (await redis.client.xinfo('GROUPS', key)) as unknown[][];
    for (const fields of groups) {
      const info = pairs(fields);
      const name = String(info.name);
      backlog.groups.push(`${stream}/${name}`);
      const pending = Number(info.pending);
      // Redis 7 reports the lag; null when it cannot tell (then entries-read tells).
      const lag = info.lag === null ? Number.NaN : Number(info.lag);
      if (pending !== 0 || lag !== 0) backlog.unfinished.push(`${stream} / ${name}: ${pending} pending, ${info.lag} lag`);
    }
  }
  return backlog;
}

function pairs(fields: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) out[String(fields[i])] = fields[i + 1];
  return out;
}
