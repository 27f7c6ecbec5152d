/**
 * An event-sourced domain for the event-store subscription tests, built fresh per call: a Ledger
 * (event-sourced) is posted to with `Posted { n }` (n = 1, 2, 3… per ledger), and the `Tallies`
 * handler, reading the event store, appends each n to the ledger's Tally (a stored aggregate) in
 * its own unit of work, with no dedup or ordering code of its own. `probe.onPosted` may fail it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apply, BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type ConfigOverrides } from '@protean-ts/core';

export interface LedgerProbe {
  /** `n` of every handler run (retries included), in start order. */
  runs: number[];
  onPosted: (n: number, ledgerId: string) => Promise<void> | void;
}

export function newLedgerProbe(): LedgerProbe {
  return { runs: [], onPosted: () => undefined };
}

export function makeLedger(name: string, config: ConfigOverrides, probe: LedgerProbe) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-ledger-'));
  const domain = new Domain(name, { root, config });

  @domain.aggregate({ eventSourced: true })
  class Ledger extends BaseAggregate {
    @field.integer() posted?: number;

    post(count: number): void {
      for (let i = 0; i < count; i++) this.raise(Posted.create({ ledgerId: this.id, n: (this.posted ?? 0) + 1 }));
    }

    @apply(() => Posted) onPosted(event: Posted): void {
      this.posted = event.n;
    }

    @apply(() => Noted) onNoted(): void {}
  }

  @domain.event({ partOf: Ledger })
  class Posted extends BaseEvent {
    @field.identifier({ required: true }) ledgerId!: string;
    @field.integer({ required: true }) n!: number;
  }

  /** An event of the category the handler does not handle: it must still take its turn. */
  @domain.event({ partOf: Ledger })
  class Noted extends BaseEvent {
    @field.identifier({ required: true }) ledgerId!: string;
  }

  @domain.aggregate()
  class Tally extends BaseAggregate {
    @field.identifier({ identifier: true }) ledgerId!: string;
    @field.list({ of: 'integer', required: true }) seen!: number[];
  }

  @domain.eventHandler({ partOf: Tally, streamCategory: Ledger, subscriptionName: 'Tallies', subscriptionType: 'event_store' })
  class Tallies extends BaseEventHandler {
    @handle(Posted) async onPosted(event: Posted): Promise<void> {
      probe.runs.push(event.n);
      await probe.onPosted(event.n, event.ledgerId);
      const tallies = domain.repositoryFor(Tally);
      const tally = (await tallies.find(event.ledgerId)) ?? Tally.create({ ledgerId: event.ledgerId, seen: [] });
      tally.seen = [...tally.seen, event.n];
      await tallies.add(tally);
    }
  }

  /** One commit per entry of `counts`, posting that many events to a new or loaded ledger. */
  async function post(ledgerId: string | null, ...counts: number[]): Promise<string> {
    let id = ledgerId;
    for (const count of counts) {
      const ledgers = domain.repositoryFor(Ledger);
      const ledger = id ? await ledgers.get(id) : Ledger.create({});
      ledger.post(count);
      await ledgers.add(ledger);
      id = ledger.id;
    }
    return id!;
  }

  async function note(ledgerId: string): Promise<void> {
    const ledgers = domain.repositoryFor(Ledger);
    const ledger = await ledgers.get(ledgerId);
    ledger.raise(Noted.create({ ledgerId }));
    await ledgers.add(ledger);
  }

  /** Every tally's seen list, by ledger id. */
  async function tallies(): Promise<Map<string, number[]>> {
    const all = await domain.repositoryFor(Tally).query();
    return new Map(all.map((t) => [t.ledgerId, t.seen]));
  }

  return { domain, Ledger, Posted, Noted, Tally, Tallies, post, note, tallies, category: `${name.toLowerCase()}::ledger` };
}

/** Memory database, asynchronous handling, short leases and polls, one quick retry. */
export function ledgerMemoryConfig(extra: ConfigOverrides = {}): ConfigOverrides {
  return {
    event_processing: 'async',
    enable_outbox: false,
    databases: { default: { provider: 'memory' } },
    brokers: { default: { provider: 'inline' } },
    server: {
      health: { port: 0 },
      stream_subscription: { max_retries: 1, retry_delay_seconds: 0.01 },
      event_store_subscription: { lease_seconds: 1, poll_interval_ms: 10 },
    },
    ...extra,
  };
}
