/**
 * The temp project of the event-store subscription e2e test: event-sourced Ledgers are posted to
 * (`Posted { n }`, n = 1, 2, 3… per ledger, many per commit), and an event handler reading the
 * event store (server.default_subscription_type = "event_store"), with no dedup or ordering code
 * of its own, appends each n to the ledger's Tally. With FAIL_N set, the handler fails on that n.
 */

export const LEDGER_SUBSCRIPTION = 'Tallies';

export const LEDGER_DOMAIN = `
import { Domain, BaseAggregate, BaseEvent, BaseEventHandler, apply, field, handle } from '@protean-ts/core';

export const domain = new Domain('Books', { root: import.meta.url });

@domain.aggregate({ eventSourced: true })
export class Ledger extends BaseAggregate {
  @field.integer() posted?: number;

  post(count: number): void {
    for (let i = 0; i < count; i++) this.raise(Posted.create({ ledgerId: this.id, n: (this.posted ?? 0) + 1 }));
  }

  @apply(() => Posted) onPosted(event: Posted): void {
    this.posted = event.n;
  }
}

@domain.event({ partOf: Ledger })
export class Posted extends BaseEvent {
  @field.identifier({ required: true }) ledgerId!: string;
  @field.integer({ required: true }) n!: number;
}

@domain.aggregate()
export class Tally extends BaseAggregate {
  @field.identifier({ identifier: true }) ledgerId!: string;
  @field.list({ of: 'integer', required: true }) seen!: number[];
}

// No dedup, no ordering: whatever the subscription delivers is appended.
@domain.eventHandler({ partOf: Tally, streamCategory: Ledger, subscriptionName: '${LEDGER_SUBSCRIPTION}' })
export class Tallies extends BaseEventHandler {
  @handle(Posted) async onPosted(event: Posted): Promise<void> {
    if (String(event.n) === process.env.FAIL_N) throw new Error('posting ' + event.n + ' fails (test)');
    const tallies = domain.repositoryFor(Tally);
    const tally = (await tallies.find(event.ledgerId)) ?? Tally.create({ ledgerId: event.ledgerId, seen: [] });
    tally.seen = [...tally.seen, event.n];
    await tallies.add(tally);
  }
}
`;

/** \`seed.ts <ledgers> <perLedger> <perCommit>\`: each ledger's postings in commits of perCommit events, ledgers side by side. */
export const LEDGER_SEED = `
import { domain, Ledger } from './domain.ts';
const [keys, perKey, perCommit] = process.argv.slice(2).map(Number) as [number, number, number];
await domain.init();
const ledgers = domain.repositoryFor(Ledger);
await Promise.all(Array.from({ length: keys }, async () => {
  let ledger = Ledger.create({});
  let posted = 0;
  while (posted < perKey) {
    const count = Math.min(perCommit, perKey - posted);
    ledger.post(count);
    await ledgers.add(ledger);
    posted += count;
    ledger = await ledgers.get(ledger.id);
  }
}));
await domain.close();
`;
