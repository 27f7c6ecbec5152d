/**
 * A redis-server of the test's own on a free port, which the test can stop and start again.
 * Data is kept in an append-only file, so what was published before a stop is still there after
 * the restart and the test can count every message.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, startRedisServer, stopProcess } from '@protean-ts/conformance';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { freePort };

export class ThrowawayRedis {
  private server: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), 'protean-redis-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort());
    await redis.start();
    return redis;
  }

  get uri(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = await startRedisServer(this.port, { dataDir: this.dir });
  }

  /** Stops the server (SIGTERM: it flushes its append-only file) and waits until it is gone. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await stopProcess(server, 'SIGTERM');
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
