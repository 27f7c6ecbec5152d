/**
 * `[event_store] database_uri` on PostgreSQL: the event store in a database of its own (a second
 * temp database), next to the aggregates' `default`. Events of an event-sourced aggregate and
 * their outbox rows land in the store's database, in one transaction, and never in `default`;
 * rows of other aggregates stay in `default`. A unit of work touching both commits two
 * transactions without two-phase commit, which the last test pins.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { apply, BaseAggregate, BaseEvent, configureLogging, Domain, field, StreamVersionError } from '@protean-ts/core';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

// A root of its own: no domain.toml up the tree (the repository's) joins the test's configuration.
const ledger = new Domain('Ledger', { root: fs.mkdtempSync(path.join(os.tmpdir(), 'protean-ledger-')) });

@ledger.aggregate({ eventSourced: true })
class Wallet extends BaseAggregate {
  @field.integer() balance?: number;

  static open(): Wallet {
    const wallet = Wallet.create({});
    wallet.raise(WalletOpened.create({ walletId: wallet.id }));
    return wallet;
  }

  credit(amount: number): void {
    this.raise(WalletCredited.create({ walletId: this.id, amount }));
  }

  @apply(() => WalletOpened) onOpened(): void {
    this.balance = 0;
  }

  @apply(() => WalletCredited) onCredited(event: WalletCredited): void {
    this.balance = (this.balance ?? 0) + event.amount;
  }
}

@ledger.event({ partOf: Wallet })
class WalletOpened extends BaseEvent {
  @field.identifier({ required: true }) walletId!: string;
}

@ledger.event({ partOf: Wallet })
class WalletCredited extends BaseEvent {
  @field.identifier({ required: true }) walletId!: string;
  @field.integer({ required: true }) amount!: number;
}

/** Stored as a row in `default`; its event goes to `default`'s outbox. */
@ledger.aggregate()
class Customer extends BaseAggregate {
  @field.string({ required: true }) name!: string;
}

@ledger.event({ partOf: Customer })
class CustomerJoined extends BaseEvent {
  @field.identifier({ required: true }) customerId!: string;
}

const PASSWORD = 'dedicated-store-pw';

describe.skipIf(!up)('[event_store] database_uri on PostgreSQL', () => {
  let main: TempDatabase;
  let events: TempDatabase;
  const logLines: string[] = [];
  let restoreLogging: ReturnType<typeof configureLogging>;
  const wallets = () => ledger.repositoryFor(Wallet);
  const customers = () => ledger.repositoryFor(Customer);
  const streamOf = (id: string) => `ledger::wallet-${id}`;
  const count = async (db: TempDatabase, table: string, where = 'true', params: unknown[] = []) =>
    (await queryDatabase<{ n: number }>(db.uri, `SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params))[0]!.n;

  beforeAll(async () => {
    restoreLogging = configureLogging({ level: 'debug', sink: (line) => logLines.push(line) });
    [main, events] = await Promise.all([createTempDatabase('es_main'), createTempDatabase('es_store')]);
    await ledger.init({
      config: {
        databases: { default: { provider: 'postgresql', database_uri: main.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
        // Trust authentication ignores the password; it is here to be masked.
        event_store: { provider: 'postgresql', database_uri: events.uri.replace('postgresql://postgres@', `postgresql://postgres:${PASSWORD}@`) },
        snapshot_threshold: 3,
      },
    });
    for (const [name, provider] of ledger.providers) {
      await provider.setupSchema(
        ledger.runtime.infrastructure.aggregateSchemas().filter((s) => s.provider === name),
        { outbox: true },
      );
    }
  });
  afterAll(async () => {
    await ledger.close();
    await Promise.all([main?.drop(), events?.drop()]);
    configureLogging(restoreLogging);
  });
  beforeEach(async () => {
    for (const db of [main, events]) await queryDatabase(db.uri, 'TRUNCATE protean_events, protean_event_streams, protean_snapshots, protean_outbox');
    await queryDatabase(main.uri, 'TRUNCATE customer');
  });

  it("opens the store's database as [databases.event_store], logging its URI masked", () => {
    expect([...ledger.providers.keys()].sort()).toEqual(['default', 'event_store']);
    expect(ledger.config.event_store.database).toBe('event_store');
    const connected = logLines.filter((line) => line.includes('database connected') && line.includes('event_store'));
    expect(connected).toHaveLength(1);
    expect(connected[0]).toContain('postgres:***@');
    expect(logLines.join('\n')).not.toContain(PASSWORD);
  });

  it("stores an event-sourced aggregate's events and their outbox rows in the dedicated database only, and loads it back", async () => {
    const wallet = Wallet.open();
    wallet.credit(5);
    await wallets().add(wallet);
    expect(await count(events, 'protean_events', 'stream_name = $1', [streamOf(wallet.id)])).toBe(2);
    expect(await count(events, 'protean_outbox', 'partition_key = $1', [streamOf(wallet.id)])).toBe(2);
    expect(await count(main, 'protean_events')).toBe(0);
    expect(await count(main, 'protean_outbox')).toBe(0);
    const loaded = await wallets().get(wallet.id);
    expect([loaded.balance, loaded._version]).toEqual([5, 1]);
  });

  it('writes snapshots to the dedicated database', async () => {
    const wallet = Wallet.open();
    wallet.credit(1);
    wallet.credit(2);
    await wallets().add(wallet);
    await wallets().get(wallet.id);
    expect(await count(events, 'protean_snapshots', 'stream_name = $1', [streamOf(wallet.id)])).toBe(1);
    expect(await count(main, 'protean_snapshots')).toBe(0);
    expect((await wallets().get(wallet.id)).balance).toBe(3);
  });

  it('one unit of work: the row aggregate and its outbox row go to default, the events and theirs to the store', async () => {
    const wallet = Wallet.open();
    await ledger.uow(async () => {
      const customer = Customer.create({ name: 'Ann' });
      customer.raise(CustomerJoined.create({ customerId: customer.id }));
      await customers().add(customer);
      await wallets().add(wallet);
    });
    expect(await count(main, 'customer')).toBe(1);
    expect(await count(main, 'protean_outbox', "message_type = 'Ledger.CustomerJoined.v1'")).toBe(1);
    expect(await count(main, 'protean_events')).toBe(0);
    expect(await count(events, 'protean_events', 'stream_name = $1', [streamOf(wallet.id)])).toBe(1);
    expect(await count(events, 'protean_outbox', "message_type = 'Ledger.WalletOpened.v1'")).toBe(1);
    expect(await count(events, 'protean_outbox', "message_type = 'Ledger.CustomerJoined.v1'")).toBe(0);
  });

  it('a unit of work that fails leaves neither events nor their outbox rows in the store, nor the row in default', async () => {
    const wallet = Wallet.open();
    await wallets().add(wallet);
    const loaded = await wallets().get(wallet.id);
    await expect(
      ledger.uow(async () => {
        await customers().add(Customer.create({ name: 'Bob' }));
        loaded.credit(3);
        await wallets().add(loaded);
        throw new Error('fails after the append');
      }),
    ).rejects.toThrow('fails after the append');
    expect(await count(events, 'protean_events', 'stream_name = $1', [streamOf(wallet.id)])).toBe(1);
    expect(await count(events, 'protean_outbox')).toBe(1);
    expect(await count(main, 'customer')).toBe(0);
  });

  it("a version conflict at the store's append rolls back the unit's row in default too", async () => {
    const wallet = Wallet.open();
    await wallets().add(wallet);
    const first = await wallets().get(wallet.id);
    const second = await wallets().get(wallet.id);
    first.credit(1);
    await wallets().add(first);
    await expect(
      ledger.uow(async () => {
        await customers().add(Customer.create({ name: 'Cy' }));
        second.credit(2);
        await wallets().add(second);
      }),
    ).rejects.toThrow(StreamVersionError);
    expect(await count(main, 'customer')).toBe(0);
    expect(await count(events, 'protean_events', 'stream_name = $1', [streamOf(wallet.id)])).toBe(2);
  });

  it("the outbox of the store's database is claimed like any database's (its relay publishes the events)", async () => {
    const wallet = Wallet.open();
    await wallets().add(wallet);
    const store = ledger.providers.get('event_store') as PostgresProvider;
    const claimed = await store.outbox.claimBatch({ workerId: 'test', targetBroker: 'default', limit: 10, lockMs: 30_000 });
    expect(claimed.map((row) => row.partitionKey)).toEqual([streamOf(wallet.id)]);
  });
  it("no two-phase commit: when the store's COMMIT fails after default committed, the row stays and the events go with their outbox rows", async () => {
    // A deferred constraint trigger makes the store's COMMIT itself fail for one stream.
    await queryDatabase(
      events.uri,
      `
      CREATE TABLE refused_streams (stream_name text PRIMARY KEY);
      CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM refused_streams WHERE stream_name = NEW.stream_name) THEN RAISE EXCEPTION 'stream % refused at commit', NEW.stream_name; END IF;
        RETURN NULL;
      END $$;
      CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON protean_events DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_at_commit();`,
    );
    try {
      const wallet = Wallet.open();
      await queryDatabase(events.uri, 'INSERT INTO refused_streams VALUES ($1)', [streamOf(wallet.id)]);
      await expect(
        ledger.uow(async () => {
          // default's transaction opens first, so it commits first.
          await customers().add(Customer.create({ name: 'Dee' }));
          await wallets().add(wallet);
        }),
      ).rejects.toThrow('refused at commit');
      expect(await count(main, 'customer', "name = 'Dee'")).toBe(1);
      expect(await count(events, 'protean_events', 'stream_name = $1', [streamOf(wallet.id)])).toBe(0);
      expect(await count(events, 'protean_outbox')).toBe(0);
      expect(logLines.some((line) => line.includes('commit failed after other databases committed') && line.includes('event_store'))).toBe(true);
    } finally {
      await queryDatabase(events.uri, 'DROP TRIGGER refuse_at_commit ON protean_events; DROP FUNCTION refuse_at_commit(); DROP TABLE refused_streams');
    }
  });
});
