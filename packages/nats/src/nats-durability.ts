/**
 * Whether a JetStream stream keeps what it acknowledged. The outbox marks a message published once
 * JetStream acknowledges it, so a message the server then loses is lost for good. JetStream keeps
 * an acknowledged message through a crash of its machine only when the write reached disk (the
 * server syncs each write: `jetstream { sync_interval: always }`, nats-server 2.10 and later;
 * by default it syncs every two minutes) or other servers (replicas, a quorum of them).
 */
import { StorageType } from '@nats-io/jetstream';

/** The settings of a stream that decide what survives a crash. */
export interface StreamDurability {
  storage: StorageType;
  num_replicas: number;
}

/** Replicas from which a quorum survives one server's loss. */
export const DURABLE_REPLICAS = 3;

/** What keeps `stream` from holding on to acknowledged messages; empty when nothing does. */
export function durabilityProblems(config: StreamDurability, serverSyncAlways: boolean): string[] {
  if (config.storage === StorageType.Memory)
    return [
      'it keeps messages in memory only (storage: memory), so a restart of the NATS server loses every message it acknowledged; recreate it with file storage',
    ];
  if (config.num_replicas >= DURABLE_REPLICAS || serverSyncAlways) return [];
  return [
    `it has ${config.num_replicas} ${config.num_replicas === 1 ? 'replica' : 'replicas'}, and JetStream syncs its files to disk every two minutes by default: ` +
      'a crash of the machine can lose what the server acknowledged in that time. Run nats-server 2.10 or later with ' +
      '`jetstream { sync_interval: always }` and set server_sync_always = true in the broker settings, or run a cluster and set replicas = 3',
  ];
}
