/**
 * drain(domain, { dueWithin }): a process manager's 14-day timeout fired in a test without
 * waiting, on the embedded default; timeouts further out, and timeouts the manager cancelled,
 * stay as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain, stopHandlers } from '../src/index.js';
import { library, Loan, reminded } from './support/loans.js';

describe('drain with dueWithin', () => {
  beforeAll(() =>
    library.init({ config: { event_processing: 'async', databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } } }),
  );
  afterAll(() => stopHandlers(library));

  const scheduled = async () => (await library.providers.get('default')!.outbox.list({ status: 'scheduled', limit: 100 })).length;

  it('fires the timeouts due within the window, and only those', async () => {
    const loans = library.repositoryFor(Loan);
    const kept = Loan.lend('Dune');
    const returned = Loan.lend('Emma');
    await loans.add(kept);
    await loans.add(returned);
    await drain(library);
    // Two reminders wait 14 days; drain alone does not wait for them.
    expect(reminded).toEqual([]);
    expect(await scheduled()).toBe(2);

    returned.giveBack();
    await loans.add(returned);
    await drain(library);
    // Returned in time: its reminder is cancelled with the completed instance.
    expect(await scheduled()).toBe(1);

    await drain(library, { dueWithin: '13d' });
    expect(reminded).toEqual([]);
    expect(await scheduled()).toBe(1);

    await drain(library, { dueWithin: '15d' });
    expect(reminded).toEqual([kept.id]);
    expect(await scheduled()).toBe(0);
  });

  it('refuses a window that is not a duration, naming the option', async () => {
    await expect(drain(library, { dueWithin: '2 weeks' })).rejects.toThrow(/dueWithin/);
  });
});
