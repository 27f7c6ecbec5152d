/**
 * The temp project of the consumer-guarantee e2e test: Counters raise `Ticked { n }` (n = 1, 2, 3…
 * per counter, many per commit) and an event handler with no dedup or ordering code of its own
 * appends each n to the counter's Tally. On Redis and NATS, worker 2's broker loses acks of that
 * handler on purpose.
 */

/** The group (subscription) of the handler whose effects the test reads. */
export const TALLY_GROUP = 'Tallies';

/** The broker adapter the tally domain's lossy broker extends. */
export interface TallyBroker {
  /** Workspace package to import it from, e.g. 'redis'. */
  pkg: string;
  className: string;
  /** The provider name the lossy variant registers (`[brokers.default] provider`). */
  provider: string;
}

export const TALLY_REDIS: TallyBroker = { pkg: 'redis', className: 'RedisBroker', provider: 'lossy-ack-redis' };
export const TALLY_NATS: TallyBroker = { pkg: 'nats', className: 'NatsBroker', provider: 'lossy-ack-nats' };

const lossyAckBroker = (broker: TallyBroker): string => `
import { registerBroker, type BrokerSettings } from '@protean-ts/core';
import { ${broker.className} as AdapterBroker } from '@protean-ts/${broker.pkg}';

/**
 * The adapter, except that in worker 2 every 4th ack of the ${TALLY_GROUP} group fails, for its first
 * LOSSY_ACKS acks: those messages were handled but stay pending, are taken over later and must
 * not be handled again.
 */
class LossyAckBroker extends AdapterBroker {
  private acks = 0;
  override async ack(stream: string, group: string, ids: readonly string[]): Promise<number> {
    if (process.env.PROTEAN_WORKER_ID === '2' && group === '${TALLY_GROUP}' && this.acks < Number(process.env.LOSSY_ACKS ?? 0)) {
      this.acks += 1;
      if (this.acks % 4 === 0) throw new Error('ack lost on purpose (test)');
    }
    return super.ack(stream, group, ids);
  }
}
registerBroker('${broker.provider}', (name: string, settings: BrokerSettings) => new LossyAckBroker(name, settings));
`;

/**
 * The tally domain; with a broker, worker 2's copy of that adapter loses acks on purpose (the
 * domain registers it as `broker.provider`). Without one it runs on the plain default broker.
 */
export const tallyDomain = (broker?: TallyBroker): string => `
import { Domain, BaseAggregate, BaseEvent, BaseEventHandler, field, handle } from '@protean-ts/core';
${broker ? lossyAckBroker(broker) : ''}
export const domain = new Domain('Ticks', { root: import.meta.url });

@domain.aggregate()
export class Counter extends BaseAggregate {
  @field.string({ required: true }) name!: string;
  @field.integer({ required: true }) ticks!: number;
}

@domain.event({ partOf: Counter })
export class Ticked extends BaseEvent {
  @field.identifier({ required: true }) counterId!: string;
  @field.integer({ required: true }) n!: number;
}

@domain.aggregate()
export class Tally extends BaseAggregate {
  @field.identifier({ identifier: true }) counterId!: string;
  @field.list({ of: 'integer', required: true }) seen!: number[];
}

// No dedup, no ordering: whatever the subscription delivers is appended.
@domain.eventHandler({ partOf: Tally, streamCategory: Counter, subscriptionName: '${TALLY_GROUP}' })
export class Tallies extends BaseEventHandler {
  @handle(Ticked) async onTicked(event: Ticked): Promise<void> {
    const tallies = domain.repositoryFor(Tally);
    const tally = (await tallies.find(event.counterId)) ?? Tally.create({ counterId: event.counterId, seen: [] });
    tally.seen = [...tally.seen, event.n];
    await tallies.add(tally);
  }
}
`;

/** \`seed.ts <keys> <perKey> <perCommit>\`: each counter's ticks in commits of perCommit events, counters side by side. */
export const TALLY_SEED = `
import { domain, Counter, Ticked } from './domain.ts';
const [keys, perKey, perCommit] = process.argv.slice(2).map(Number) as [number, number, number];
await domain.init();
const counters = domain.repositoryFor(Counter);
await Promise.all(Array.from({ length: keys }, async (_, k) => {
  const counter = Counter.create({ name: 'k' + k, ticks: 0 });
  while (counter.ticks < perKey) {
    const from = counter.ticks + 1;
    counter.ticks = Math.min(perKey, counter.ticks + perCommit);
    for (let n = from; n <= counter.ticks; n++) counter.raise(Ticked.create({ counterId: counter.id, n }));
    await counters.add(counter);
  }
}));
await domain.close();
`;
