/**
 * A JetStream stream prefix of its own per run (the NATS broker's `stream_prefix`), so runs
 * sharing the local NATS never read each other's streams; everything under it is deleted
 * afterwards. The backlog is read with the JetStream API directly, independent of the adapter.
 */
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { fromNatsToken, natsToken } from '@protean-ts/nats';
import type { StreamBacklog } from './stream-backlog.js';

export const NATS_SERVER = 'nats://127.0.0.1:4222';

export interface NatsNamespace {
  prefix: string;
  /** Writes a payload to a protean stream's subject, as a system outside the domain would. */
  publishRaw(stream: string, payload: string): Promise<void>;
  backlog(): Promise<StreamBacklog>;
  drop(): Promise<void>;
}

export async function createNatsNamespace(name = 'shop'): Promise<NatsNamespace> {
  const prefix = `${name}-${randomBytes(5).toString('hex')}-`;
  const nc: NatsConnection = await connect({ servers: new URL(NATS_SERVER).host });
  const jsm: JetStreamManager = await jetstreamManager(nc);
  const mine = async (): Promise<string[]> => {
    const names: string[] = [];
    for await (const stream of jsm.streams.names()) if (stream.startsWith(prefix)) names.push(stream);
    return names;
  };
  return {
    prefix,
    async publishRaw(stream, payload) {
      await jetstream(nc).publish(`protean.${prefix}${natsToken(stream)}`, payload);
    },
    async backlog() {
      const backlog: StreamBacklog = { unfinished: [], deadLetters: {}, groups: [] };
      for (const jsName of await mine()) {
        if (jsName.endsWith('_dlq')) {
          const count = (await jsm.streams.info(jsName)).state.messages;
          if (count > 0) backlog.deadLetters[fromNatsToken(jsName.slice(prefix.length, -'_dlq'.length))] = count;
          continue;
        }
        const stream = fromNatsToken(jsName.slice(prefix.length));
        for await (const consumer of jsm.consumers.list(jsName)) {
          const group = fromNatsToken(consumer.name);
          backlog.groups.push(`${stream}/${group}`);
          if (consumer.num_ack_pending !== 0 || consumer.num_pending !== 0) {
            backlog.unfinished.push(`${stream} / ${group}: ${consumer.num_ack_pending} pending, ${consumer.num_pending} lag`);
          }
        }
      }
      return backlog;
    },
    async drop() {
      for (const jsName of await mine()) await jsm.streams.delete(jsName).catch(() => undefined);
      await jsm.streams.delete(`KV_${prefix}protean_consumers`).catch(() => undefined);
      await nc.close();
    },
  };
}
