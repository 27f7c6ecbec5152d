/**
 * Helpers for the RabbitMQ adapter's tests: a throwaway virtual host per test file (so files run
 * in parallel on one RabbitMQ and leave nothing behind), and its URI.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const RABBITMQ_HOST_URI = 'amqp://guest:guest@127.0.0.1:5672';

export function rabbitUri(vhost: string): string {
  return `${RABBITMQ_HOST_URI}/${encodeURIComponent(vhost)}`;
}

/** Creates a virtual host named after `label` (guest may use it); returns its name. */
export async function createVhost(label: string): Promise<string> {
  const vhost = `protean-test-${label}-${randomUUID().slice(0, 8)}`;
  await run('rabbitmqctl', ['add_vhost', vhost]);
  await run('rabbitmqctl', ['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*']);
  return vhost;
}

export async function deleteVhost(vhost: string): Promise<void> {
  await run('rabbitmqctl', ['delete_vhost', vhost]).catch(() => undefined);
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
