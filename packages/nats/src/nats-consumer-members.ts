/**
 * Which protean consumers (worker names) a group has, for `removeIdleConsumers`. JetStream has
 * one durable consumer per group and does not know the workers behind it, so each worker writes
 * a record to a KV bucket when it reads or acks: `{ consumer, held, activeAt }`. A record holding
 * messages counts as pending only while its writer refreshes it (every third of `ack_wait`):
 * a worker that stopped refreshing has crashed, and JetStream redelivers what it held after
 * `ack_wait`, so nothing is lost to the group by removing its name.
 * Idle times compare `activeAt` (the writer's clock) with the caller's clock: keep hosts in NTP
 * sync; skew only shifts when stopped names are cleaned up, never a delivery.
 */
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { type NatsNaming, fromNatsToken } from './nats-names.js';

interface MemberRecord {
  consumer: string;
  held: number;
  activeAt: number;
}

export class NatsConsumerMembers {
  private bucket: Promise<KV> | null = null;

  constructor(
    private readonly nc: () => NatsConnection,
    private readonly naming: NatsNaming,
    private readonly ackWaitMs: number,
  ) {}

  /** Records that `consumer` was active in the group just now, holding `held` messages. */
  async touch(stream: string, group: string, consumer: string, held: number, active = true): Promise<void> {
    const kv = await this.kv();
    const key = this.naming.memberKey(stream, group, consumer);
    let activeAt = Date.now();
    if (!active) {
      const previous = await kv.get(key);
      const record = previous?.value.length ? (previous.json() as MemberRecord) : null;
      activeAt = record?.activeAt ?? activeAt;
    }
    await kv.put(key, JSON.stringify({ consumer, held, activeAt } satisfies MemberRecord));
  }

  async removeIdle(stream: string, group: string, idleMs: number): Promise<string[]> {
    const kv = await this.kv();
    const keys: string[] = [];
    for await (const key of await kv.keys(`${this.naming.groupKeyPrefix(stream, group)}.*`)) keys.push(key);
    const removed: string[] = [];
    const now = Date.now();
    for (const key of keys) {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== 'PUT' || entry.value.length === 0) continue;
      const record = entry.json() as MemberRecord;
      const refreshedAgo = now - entry.created.getTime();
      const pending = record.held > 0 && refreshedAgo < this.ackWaitMs;
      if (pending || now - record.activeAt < idleMs) continue;
      try {
        // Only if nobody wrote it since we read it: a worker that just read keeps its record.
        await kv.delete(key, { previousSeq: entry.revision });
        removed.push(record.consumer ?? fromNatsToken(key.split('.').pop()!));
      } catch {
        // Written meanwhile: active again.
      }
    }
    return removed;
  }

  private kv(): Promise<KV> {
    this.bucket ??= new Kvm(this.nc()).create(this.naming.membersBucket, { history: 1 }).catch((err: unknown) => {
      this.bucket = null;
      throw err;
    });
    return this.bucket;
  }

  reset(): void {
    this.bucket = null;
  }
}
