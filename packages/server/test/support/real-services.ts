/**
 * Real-service helpers for integration tests: a throw-away PostgreSQL database per file, a
 * unique Redis stream prefix, and a private redis-server that a test may kill and restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';

export const POSTGRES_URI = 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URI = 'redis://127.0.0.1:6379';

export interface TempDatabase {
  name: string;
  uri: string;
  drop(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_URI}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTempDatabase(): Promise<TempDatabase> {
  const name = `srv_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  return { name, uri: `${POSTGRES_URI}/${name}`, drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** A stream prefix no other test file uses, so files share the Redis server safely. */
export function uniquePrefix(label: string): string {
  return `t-${label}-${randomBytes(4).toString('hex')}:`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server without persistence on `port`; resolves once it accepts connections. */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode} on port ${port}`);
    if (await accepts(port)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on port ${port}`);
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
