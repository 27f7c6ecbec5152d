/**
 * Helpers for the Redis adapter's tests: a unique key prefix per file, cleanup of its keys, a
 * free TCP port, and a throwaway redis-server child process that can be killed and restarted.
 */
import type { ChildProcess } from 'node:child_process';
import { stopProcess } from '@protean-ts/conformance';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URI = 'redis://127.0.0.1:6379';

export function uniquePrefix(label: string): string {
  return `protean-test:${label}:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under `prefix` (the file's streams and their dead-letter streams). */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URI);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export { freePort, startRedisServer } from '@protean-ts/conformance';

export async function killRedisServer(child: ChildProcess): Promise<void> {
  await stopProcess(child, 'SIGKILL');
}

/** Polls until `check` is true; fails with `what` when `timeoutMs` passes first. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}
