/**
 * Upcasters on PostgreSQL: the v1 bank writes a stream, then the bank whose Deposited event is at
 * v3 (with v1 → v2 → v3 upcasters) loads it from the same database, and the rows in
 * protean_events are unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesUp, POSTGRES } from '@protean-ts/core/testing';
import { apply, BaseAggregate, BaseEvent, configureLogging, Domain, field } from '@protean-ts/core';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, queryDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

/** The bank before (`depositVersion` 1: whole euros) and after (3: cents and a currency, upcast). */
function bank(depositVersion: 1 | 3) {
  const domain = new Domain('Bank');

  @domain.aggregate({ eventSourced: true })
  class Account extends BaseAggregate {
    @field.integer() balanceCents?: number;

    @apply(() => Deposited) onDeposited(event: Deposited): void {
      this.balanceCents = (this.balanceCents ?? 0) + (depositVersion === 1 ? event.amount! * 100 : event.amountCents!);
    }
  }

  @domain.event({ partOf: Account, version: depositVersion })
  class Deposited extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer() amount?: number;
    @field.integer() amountCents?: number;
    @field.string() currency?: string;
  }

  if (depositVersion === 3) {
    domain.upcaster({ event: Deposited, from: 1, to: 2 })(
      class DepositInCents {
        upcast({ amount, ...rest }: Record<string, unknown>): Record<string, unknown> {
          return { ...rest, amountCents: Number(amount) * 100 };
        }
      },
    );
    domain.upcaster({ event: Deposited, from: 2, to: 3 })(
      class DepositInEuros {
        upcast(data: Record<string, unknown>): Record<string, unknown> {
          return { ...data, currency: 'EUR' };
        }
      },
    );
  }
  const deposit = (account: Account, amount: number) =>
    account.raise(Deposited.create(depositVersion === 1 ? { accountId: account.id, amount } : { accountId: account.id, amountCents: amount, currency: 'EUR' }));
  return { domain, Account, deposit };
}

describe.skipIf(!up)('upcasters on PostgreSQL', () => {
  let db: TempDatabase;
  let restoreLogging: ReturnType<typeof configureLogging>;
  const config = () => ({
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 2 } },
    brokers: { default: { provider: 'inline' } },
  });
  const rows = () => queryDatabase(db.uri, 'SELECT * FROM protean_events ORDER BY global_position');

  beforeAll(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTempDatabase('upcast');
  });
  afterAll(async () => {
    await db?.drop();
    configureLogging(restoreLogging);
  });

  it('a stream written at Deposited v1 loads through v1 → v2 → v3 and its rows stay as written', async () => {
    const before = bank(1);
    await before.domain.init({ config: config() });
    await (before.domain.providers.get('default') as PostgresProvider).setupOutbox();
    const written = before.Account.create({});
    before.deposit(written, 10);
    before.deposit(written, 5);
    await before.domain.repositoryFor(before.Account).add(written);
    await before.domain.close();
    const stored = await rows();
    expect(stored.map((row) => row.type)).toEqual(['Bank.Deposited.v1', 'Bank.Deposited.v1']);

    const after = bank(3);
    await after.domain.init({ config: config() });
    try {
      const repo = after.domain.repositoryFor(after.Account);
      const loaded = await repo.get(written.id);
      expect([loaded.balanceCents, loaded._version]).toEqual([1500, 1]);
      expect(await rows()).toEqual(stored);

      after.deposit(loaded, 250);
      await repo.add(loaded);
      const now = await rows();
      expect(now.slice(0, 2)).toEqual(stored);
      expect(now[2]!.type).toBe('Bank.Deposited.v3');
      expect((await repo.get(written.id)).balanceCents).toBe(1750);
    } finally {
      await after.domain.close();
    }
  });
});
