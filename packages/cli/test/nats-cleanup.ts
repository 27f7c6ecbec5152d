/** Removes a test project's JetStream streams (and their consumers and membership bucket) from the shared NATS. */
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

export async function deleteNatsStreams(prefix: string, servers = '127.0.0.1:4222'): Promise<void> {
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix) || name === `KV_${prefix}protean_consumers`) await jsm.streams.delete(name).catch(() => undefined);
    }
  } finally {
    await nc.close();
  }
}
