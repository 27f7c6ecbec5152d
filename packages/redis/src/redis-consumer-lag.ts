/**
 * `consumerLag` for Redis: the groups XINFO GROUPS lists on the stream, each counted the way
 * `groupStatus` counts it (a small backlog exactly, which a stale XINFO `lag` cannot fool).
 */
import type { Redis } from 'ioredis';
import type { GroupLag } from '@protean-ts/core';
import { readGroupStatus } from './redis-group-status.js';

export async function readConsumerLag(client: Redis, streamKey: string, lostKey: string): Promise<GroupLag[]> {
  let groups: unknown[];
  try {
    groups = (await client.xinfo('GROUPS', streamKey)) as unknown[];
  } catch (error) {
    if (error instanceof Error && error.message.includes('no such key')) return [];
    throw error;
  }
  const names = groups.map(groupName).filter((name): name is string => name !== null);
  const lags: GroupLag[] = [];
  for (const group of names) {
    const status = await readGroupStatus(client, streamKey, lostKey, group);
    if (!status.exists) continue;
    // Past the exact count with no XINFO lag: the stream's length is an upper bound of what is undelivered.
    const undelivered = status.lag ?? (await client.xlen(streamKey));
    lags.push({ group, behind: undelivered + status.pending });
  }
  return lags;
}

/** A reply of XINFO GROUPS is a flat list of field names and values. */
function groupName(reply: unknown): string | null {
  if (!Array.isArray(reply)) return null;
  const at = reply.indexOf('name');
  const name: unknown = at >= 0 ? reply[at + 1] : undefined;
  return typeof name === 'string' ? name : Buffer.isBuffer(name) ? name.toString() : null;
}
