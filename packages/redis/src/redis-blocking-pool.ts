/**
 * Connections for blocking reads. A blocked XREADGROUP holds its connection for up to
 * `blockMs`, so each concurrent blocking read gets its own and publishing on the main
 * connection never waits behind one. Connections are reused, and dropped when unusable.
 */
import type { Redis } from 'ioredis';

export class RedisBlockingPool {
  private readonly idle: Redis[] = [];
  private readonly all = new Set<Redis>();
  private closed = false;

  constructor(private readonly create: () => Redis) {}

  get size(): number {
    return this.all.size;
  }

  /** Runs `use` on a connection of its own; a connection that fails to connect is discarded. */
  async with<T>(use: (connection: Redis) => Promise<T>): Promise<T> {
    const connection = this.idle.pop() ?? (await this.open());
    try {
      return await use(connection);
    } finally {
      if (this.closed) connection.disconnect();
      else this.idle.push(connection);
    }
  }

  /** Cuts every connection at once, ending blocked reads (a graceful QUIT would wait for them). */
  closeAll(): void {
    this.closed = true;
    for (const connection of this.all) connection.disconnect();
    this.all.clear();
    this.idle.length = 0;
  }

  private async open(): Promise<Redis> {
    const connection = this.create();
    let socketError: Error | undefined;
    const remember = (error: Error) => {
      socketError = error;
    };
    connection.on('error', remember);
    try {
      await connection.connect();
    } catch (error) {
      connection.disconnect();
      // ioredis rejects with "Connection is closed."; the socket error says why.
      throw socketError ?? error;
    } finally {
      connection.off('error', remember);
    }
    if (this.closed) {
      connection.disconnect();
      throw new Error('Connection is closed (the broker was closed while connecting)');
    }
    this.all.add(connection);
    return connection;
  }
}
