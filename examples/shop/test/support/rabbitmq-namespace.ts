/**
 * A RabbitMQ virtual host of its own per run, so runs sharing the local RabbitMQ never read each
 * other's queues; the whole virtual host is deleted afterwards. Raw writes go through a plain
 * AMQP publisher, as another system's producer would; the backlog is read per group queue.
 */
import { Connection } from 'rabbitmq-client';
import { createRabbitmqVhost, deleteRabbitmqVhost, rabbitmqUri } from '@protean-ts/conformance';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import type { StreamBacklog } from './stream-backlog.js';

export interface RabbitmqNamespace {
  uri: string;
  /** Writes a payload to a protean stream's exchange, as a system outside the domain would. */
  publishRaw(stream: string, payload: string): Promise<void>;
  /** `groups` are `<stream>/<group>` pairs: plain AMQP cannot list a virtual host's queues. */
  backlog(groups: readonly string[]): Promise<StreamBacklog>;
  drop(): Promise<void>;
}

export async function createRabbitmqNamespace(label: string): Promise<RabbitmqNamespace> {
  const vhost = await createRabbitmqVhost(label);
  const uri = rabbitmqUri(vhost);
  return {
    uri,
    async publishRaw(stream, payload) {
      const connection = new Connection(uri);
      const publisher = connection.createPublisher({ confirm: true });
      try {
        // The stream's exchange, declared by the subscription that reads it.
        await publisher.send({ exchange: stream, routingKey: stream, contentType: 'application/json', durable: true, mandatory: true }, Buffer.from(payload));
      } finally {
        await publisher.close();
        await connection.close();
      }
    },
    async backlog(groups) {
      const observer = new RabbitMQBroker('backlog', { provider: 'rabbitmq', uri });
      const backlog: StreamBacklog = { unfinished: [], deadLetters: {}, groups: [] };
      try {
        for (const entry of groups) {
          const [stream, group] = entry.split('/') as [string, string];
          const status = await observer.groupStatus(stream, group);
          if (!status.exists) continue;
          backlog.groups.push(entry);
          // Every worker has stopped: nothing is unacked any more, so `lag` is what still waits.
          if (status.lag !== 0) backlog.unfinished.push(`${stream} / ${group}: ${status.lag} lag`);
        }
        for (const stream of new Set(groups.map((g) => g.split('/')[0]!))) {
          const letters = await observer.listDeadLetters(stream, { count: 1000 });
          if (letters.length) backlog.deadLetters[stream] = letters.length;
        }
      } finally {
        await observer.close();
      }
      return backlog;
    },
    drop: () => deleteRabbitmqVhost(vhost),
  };
}
