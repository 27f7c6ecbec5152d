/**
 * Decides whether a test file that needs a real service (PostgreSQL, Redis, …) runs.
 * Under CI=true an unreachable service fails the file; elsewhere the file is skipped with one
 * loud line saying what to start, so a laptop without Redis still gets a useful run.
 */
import net from 'node:net';
import { LOCAL_POSTGRES } from '@protean-ts/core/temporary-database';

export interface ServiceCheck {
  /** Shown in the skip line, e.g. `PostgreSQL`. */
  name: string;
  host: string;
  port: number;
  /** The command that starts it on a developer machine. */
  startHint: string;
}

export const POSTGRES: ServiceCheck = { name: 'PostgreSQL', ...LOCAL_POSTGRES };

export const REDIS: ServiceCheck = {
  name: 'Redis',
  host: '127.0.0.1',
  port: 6379,
  startHint: 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
};

export const NATS: ServiceCheck = {
  name: 'NATS JetStream',
  host: '127.0.0.1',
  port: 4222,
  startHint: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server',
};

export const RABBITMQ: ServiceCheck = {
  name: 'RabbitMQ',
  host: '127.0.0.1',
  port: 5672,
  startHint: 'rabbitmq-server -detached',
};

/** The management plugin's HTTP API, which `management_uri` points at (status of other connections' unacked messages). */
export const RABBITMQ_MANAGEMENT: ServiceCheck = {
  name: 'RabbitMQ management API',
  host: '127.0.0.1',
  port: 15672,
  startHint: 'rabbitmq-plugins enable rabbitmq_management',
};

function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Resolves to true when every service answers. Under CI=true it throws instead of returning
 * false; otherwise it prints one line per missing service and returns false.
 * Use it with `describe.skipIf(!(await servicesUp(POSTGRES)))`.
 */
export async function servicesUp(...checks: ServiceCheck[]): Promise<boolean> {
  const missing: ServiceCheck[] = [];
  for (const check of checks) {
    if (!(await canConnect(check.host, check.port, 1500))) missing.push(check);
  }
  if (missing.length === 0) return true;
  const lines = missing.map((m) => `${m.name} is not reachable on ${m.host}:${m.port}; start it with: ${m.startHint}`);
  if (process.env.CI === 'true') throw new Error(`CI=true and a required service is down.\n${lines.join('\n')}`);
  for (const line of lines) console.warn(`!!! SKIPPING real-service tests: ${line}`);
  return false;
}
