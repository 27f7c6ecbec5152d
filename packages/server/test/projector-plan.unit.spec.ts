/** Which subscriptions the server plans for projectors, and how they are named. */
import { afterEach, describe, expect, it } from 'vitest';
import { BaseProjector, configureLogging, on, type Domain } from '@protean-ts/core';
import { projectionLedger } from '../../core/test/support/projection-ledger.js';
import { planSubscriptions } from '../src/subscriptions/subscription-plan.js';

const memory = (overrides: Record<string, unknown> = {}) => ({
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  event_processing: 'async',
  ...overrides,
});

describe('projector subscriptions in the plan', () => {
  let domain: Domain | undefined;
  let restore: ReturnType<typeof configureLogging> | undefined;
  afterEach(async () => {
    await domain?.close();
    if (restore) configureLogging(restore);
  });

  it("one per followed category: the projector's name for one, <Projector>-<category> for several", async () => {
    restore = configureLogging({ sink: () => {} });
    const ledger = projectionLedger({ name: 'Plan' });
    domain = ledger.domain;
    @domain.projector({ projectorFor: ledger.AccountSummary, aggregates: [ledger.Account] })
    class OwnerIndex extends BaseProjector {
      @on(ledger.Opened) opened(): void {}
    }
    expect(OwnerIndex).toBeDefined();
    await domain.init({ config: memory() });
    expect(
      planSubscriptions(domain)
        .filter((p) => p.role === 'projector')
        .map((p) => [p.group, p.stream, p.source, p.projection?.name]),
    ).toEqual([
      ['AccountSummaryProjector-plan::account', 'plan::account', 'stream', 'AccountSummary'],
      ['AccountSummaryProjector-plan::transfer', 'plan::transfer', 'stream', 'AccountSummary'],
      ['OwnerIndex', 'plan::account', 'stream', 'AccountSummary'],
    ]);
  });

  it('none with event_processing = "sync" (the unit of work runs projectors after commit)', async () => {
    restore = configureLogging({ sink: () => {} });
    domain = projectionLedger({ name: 'PlanSync' }).domain;
    await domain.init({ config: memory({ event_processing: 'sync' }) });
    expect(planSubscriptions(domain).filter((p) => p.role === 'projector')).toEqual([]);
  });

  it('event-store subscriptions by default with server.default_subscription_type = "event_store"; refused by name for rows', async () => {
    restore = configureLogging({ sink: () => {} });
    domain = projectionLedger({ name: 'PlanStore', eventSourced: true }).domain;
    await domain.init({ config: memory({ enable_outbox: false, server: { default_subscription_type: 'event_store' } }) });
    expect(
      planSubscriptions(domain)
        .filter((p) => p.role === 'projector')
        .map((p) => p.source),
    ).toEqual(['event_store', 'event_store']);
    await domain.close();
    domain = projectionLedger({ name: 'PlanRows' }).domain;
    await domain.init({ config: memory({ enable_outbox: false, server: { default_subscription_type: 'event_store' } }) });
    expect(() => planSubscriptions(domain!)).toThrow('AccountSummaryProjector would read "plan_rows::account" from the event store');
  });
});
