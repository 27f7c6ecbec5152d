/**
 * What differs between brokers in the consumer-guarantees scenario: the project's broker, how the
 * handler's group is seen drained and its dead letters counted, what each broker shows of a dead
 * consumer (logged takeovers on Redis), and the clean-up. The scenario itself is the same on all.
 */
import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import { partitionStreams } from '@protean-ts/core';
import { createRabbitmqVhost, deleteRabbitmqVhost, NATS, RABBITMQ, REDIS, rabbitmqUri } from '@protean-ts/conformance';
import { NatsBroker } from '@protean-ts/nats';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { deleteNatsStreams } from '../nats-cleanup.js';
import type { ServerProject, ServerProjectOptions } from '../server-project.js';
import { TALLY_GROUP, TALLY_NATS, TALLY_REDIS, tallyDomain } from '../tally-project.js';
import type { GuaranteesBroker } from './consumer-guarantees-size.js';

export const STREAM = 'ticks::counter';

export interface BrokerSide {
  service: typeof REDIS;
  /** The project's domain and broker settings (creates what the broker needs first, e.g. a virtual host). */
  projectOptions(): Promise<Omit<ServerProjectOptions, 'seed' | 'streamSubscription'>>;
  connect(project: ServerProject): Promise<void>;
  /** Nothing pending or unread in the handler's group. */
  drained(project: ServerProject): Promise<boolean>;
  describeGroup(project: ServerProject): Promise<string>;
  deadLetters(project: ServerProject): Promise<number>;
  /**
   * Worker 2 loses acks on purpose (Redis, NATS). A lost ack on RabbitMQ leaves the delivery
   * unacked on a live channel until that worker stops, so the group would never drain.
   */
  losesAcks: boolean;
  /** Takeover of a dead consumer's messages is logged (Redis); JetStream and RabbitMQ redeliver by themselves. */
  logsTakeover: boolean;
  /** Checks once every worker stopped. */
  afterStop(project: ServerProject): Promise<void>;
  close(project: ServerProject | undefined): Promise<void>;
}

/** `partitions`: the project's `outbox.partitions`; every check looks at each partition's stream. */
export function brokerSide(broker: GuaranteesBroker, partitions = 1): BrokerSide {
  const streams = partitionStreams(STREAM, partitions);
  if (broker === 'redis') return redisSide(streams);
  if (broker === 'nats') return natsSide(streams);
  return rabbitmqSide(streams);
}

async function sumOver(streams: readonly string[], count: (stream: string) => Promise<number> | number): Promise<number> {
  let total = 0;
  for (const stream of streams) total += await count(stream);
  return total;
}

function redisSide(streams: readonly string[]): BrokerSide {
  const pending = (project: ServerProject) =>
    sumOver(streams, (stream) =>
      Number(execFileSync('redis-cli', ['XPENDING', `${project.streamPrefix}${stream}`, TALLY_GROUP], { encoding: 'utf8' }).split('\n')[0] || 0),
    );
  return {
    service: REDIS,
    projectOptions: async () => ({ domain: tallyDomain(TALLY_REDIS), link: ['redis'], brokerProvider: TALLY_REDIS.provider }),
    connect: async () => {},
    drained: async (project) => (await pending(project)) === 0,
    describeGroup: async (project) => `${await pending(project)} pending`,
    deadLetters: async (project) =>
      sumOver(streams, (stream) => Number(execFileSync('redis-cli', ['XLEN', `${project.streamPrefix}${stream}:dlq`], { encoding: 'utf8' }).trim())),
    losesAcks: true,
    logsTakeover: true,
    afterStop: async () => {},
    close: async () => {},
  };
}

function natsSide(streams: readonly string[]): BrokerSide {
  let broker: NatsBroker | undefined;
  return {
    service: NATS,
    projectOptions: async () => ({ broker: 'nats', domain: tallyDomain(TALLY_NATS), link: ['nats'], brokerProvider: TALLY_NATS.provider }),
    connect: async (project) => {
      broker = new NatsBroker('check', { provider: 'nats', uri: 'nats://127.0.0.1:4222', stream_prefix: project.streamPrefix });
    },
    drained: async () => {
      for (const stream of streams) {
        const status = await broker!.groupStatus(stream, TALLY_GROUP);
        if (status.pending !== 0 || status.lag !== 0) return false;
      }
      return true;
    },
    describeGroup: async () => JSON.stringify(await Promise.all(streams.map((stream) => broker!.groupStatus(stream, TALLY_GROUP)))),
    deadLetters: async () => sumOver(streams, async (stream) => (await broker!.listDeadLetters(stream)).length),
    losesAcks: true,
    logsTakeover: false,
    afterStop: async () => {},
    close: async (project) => {
      await broker?.close();
      if (project) await deleteNatsStreams(project.streamPrefix);
    },
  };
}

/** Plain RabbitMQ in a virtual host of its own: it hands a dead worker's unacked deliveries back to the group queue. */
function rabbitmqSide(streams: readonly string[]): BrokerSide {
  let vhost: string | undefined;
  let observer: RabbitMQBroker | undefined;
  return {
    service: RABBITMQ,
    projectOptions: async () => {
      vhost = await createRabbitmqVhost('cli-guarantees');
      return { domain: tallyDomain(), brokerLines: ['provider = "rabbitmq"', `uri = "${rabbitmqUri(vhost)}"`] };
    },
    connect: async () => {
      observer = new RabbitMQBroker('observer', { provider: 'rabbitmq', uri: rabbitmqUri(vhost!) });
    },
    // The observer holds no deliveries (its pending is local only): ready messages are what is left.
    drained: async () => (await sumOver(streams, async (stream) => (await observer!.groupStatus(stream, TALLY_GROUP)).lag ?? 1)) === 0,
    describeGroup: async () => JSON.stringify(await Promise.all(streams.map((stream) => observer!.groupStatus(stream, TALLY_GROUP)))),
    deadLetters: async () => sumOver(streams, async (stream) => (await observer!.listDeadLetters(stream)).length),
    losesAcks: false,
    logsTakeover: false,
    afterStop: async () => {
      // Nothing left unacked once every worker stopped: all of it is back in (or gone from) the queue.
      for (const stream of streams)
        expect(await observer!.groupStatus(stream, TALLY_GROUP)).toEqual({ pending: 0, lag: 0, exists: true, pendingLocalOnly: true });
    },
    close: async () => {
      await observer?.close();
      if (vhost) await deleteRabbitmqVhost(vhost);
    },
  };
}
