/**
 * ManualClock moving a subscription's retry, on the real PostgreSQL and Redis: a handler that
 * fails once waits out `retry_delay_seconds` (an hour) by the domain's clock, so `drain` finishes
 * as soon as the test advances the ManualClock past it, not an hour later.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { drain, isolatedInfrastructure, ManualClock, stopHandlers, type IsolatedInfrastructure } from '../src/index.js';
import { attempts, mailroom, notified, Parcel, ParcelArrived } from './support/mailroom.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)("ManualClock moving a subscription's retry on PostgreSQL and Redis", () => {
  let infra: IsolatedInfrastructure | undefined;
  afterAll(async () => {
    await stopHandlers(mailroom).catch(() => undefined);
    await infra?.cleanUp();
  });

  it('retries the failed handler once the clock has moved retry_delay_seconds on', async () => {
    infra = await isolatedInfrastructure({ label: 'retry_clock' });
    const clock = new ManualClock();
    mailroom.clock = clock;
    await mailroom.init({
      config: { ...infra.config, event_processing: 'async', server: { stream_subscription: { max_retries: 1, retry_delay_seconds: 3600 } } },
    });
    await infra.setUp(mailroom);

    const parcel = Parcel.create({ label: 'books' });
    parcel.raise(ParcelArrived.create({ parcelId: parcel.id }));
    await mailroom.repositoryFor(Parcel).add(parcel);
    const draining = drain(mailroom, { timeoutMs: 30_000 });
    const deadline = Date.now() + 20_000;
    while (attempts.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(attempts).toEqual([parcel.id]);

    // The clock stands for a second of real time: the retry, an hour away by it, waits.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(attempts).toEqual([parcel.id]);

    const moved = Date.now();
    clock.advance('1h');
    await draining;
    expect(notified).toEqual([parcel.id]);
    expect(attempts).toEqual([parcel.id, parcel.id]);
    expect(Date.now() - moved).toBeLessThan(10_000);
  }, 60_000);
});
