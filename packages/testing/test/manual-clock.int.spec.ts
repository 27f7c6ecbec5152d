/**
 * ManualClock on the real PostgreSQL: a process manager's 14-day timeout fires after the
 * domain's clock is moved 15 days, not after a real wait, and not before; the ManualClock's own
 * argument checks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { drain, isolatedInfrastructure, ManualClock, stopHandlers, type IsolatedInfrastructure } from '../src/index.js';
import { library, Loan, reminded } from './support/loans.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('ManualClock moving a process-manager timeout on PostgreSQL', () => {
  let infra: IsolatedInfrastructure | undefined;
  afterAll(async () => {
    await stopHandlers(library).catch(() => undefined);
    await infra?.cleanUp();
  });

  it('fires the 14-day reminder once the clock has moved past it, not before', async () => {
    infra = await isolatedInfrastructure({ label: 'clock', redis: false });
    const clock = new ManualClock();
    library.clock = clock;
    await library.init({ config: { ...infra.config, event_processing: 'async', brokers: { default: { provider: 'inline' } } } });
    await infra.setUp(library);
    const scheduled = async () => (await library.providers.get('default')!.outbox.list({ status: 'scheduled', limit: 100 })).length;

    const loan = Loan.lend('Dune');
    await library.repositoryFor(Loan).add(loan);
    await drain(library);
    expect(reminded).toEqual([]);
    expect(await scheduled()).toBe(1);

    clock.advance('13d');
    await drain(library);
    expect(reminded).toEqual([]);
    expect(await scheduled()).toBe(1);

    clock.advance('2d');
    await drain(library);
    expect(reminded).toEqual([loan.id]);
    expect(await scheduled()).toBe(0);
  }, 120_000);
});

describe('ManualClock', () => {
  it('moves only when told: advance by milliseconds or a duration, set to a moment', () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    expect(clock.now()).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(clock.advance(500).advance('2h').now()).toBe(Date.parse('2030-01-01T02:00:00.500Z'));
    expect(clock.set(0).now()).toBe(0);
  });

  it('refuses what is not a duration or a moment, naming the call', () => {
    const clock = new ManualClock();
    expect(() => clock.advance('a fortnight')).toThrow(/ManualClock\.advance\(by\)/);
    expect(() => clock.advance(-1)).toThrow(/ManualClock\.advance\(by\)/);
    expect(() => new ManualClock(new Date('nonsense'))).toThrow(/new ManualClock\(start\) takes a valid Date/);
  });
});
