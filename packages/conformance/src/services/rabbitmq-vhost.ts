/**
 * A throwaway RabbitMQ virtual host per test file (created with `rabbitmqctl`), so files run in
 * parallel on one RabbitMQ and leave no queues behind: deleting the vhost deletes everything in it.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const RABBITMQ_HOST_URI = 'amqp://guest:guest@127.0.0.1:5672';
/** The management API of the same RabbitMQ, for a broker's `management_uri`. */
export const RABBITMQ_MANAGEMENT_URI = 'http://guest:guest@127.0.0.1:15672';

/** The URI of `vhost` on the shared RabbitMQ, as guest. */
export function rabbitmqUri(vhost: string, hostUri = RABBITMQ_HOST_URI): string {
  return `${hostUri}/${encodeURIComponent(vhost)}`;
}

/** Creates a virtual host named after `label` that guest may use; returns its name. */
export async function createRabbitmqVhost(label: string): Promise<string> {
  const vhost = `protean-test-${label}-${randomUUID().slice(0, 8)}`;
  await run('rabbitmqctl', ['add_vhost', vhost]);
  await run('rabbitmqctl', ['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*']);
  return vhost;
}

export async function deleteRabbitmqVhost(vhost: string): Promise<void> {
  await run('rabbitmqctl', ['delete_vhost', vhost]).catch(() => undefined);
}
