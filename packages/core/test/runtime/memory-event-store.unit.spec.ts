/** The memory event store against the shared EventStore conformance suite, and its own edges. */
import { describe, expect, it } from 'vitest';
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { TransactionStateError } from '../../src/errors/transaction-state.error.js';
import { describeEventStoreConformance } from '@protean-ts/conformance';

describeEventStoreConformance('memory', { open: async () => new MemoryProvider('default'), propertyRuns: 1000 });

describe('memory event store', () => {
  const event = { messageId: 'm-1', type: 'Shop.Happened.v1', data: {} };

  it("refuses another provider's transaction, and a finished one, with TransactionStateError", async () => {
    const mine = new MemoryProvider('default');
    const other = new MemoryProvider('reporting');
    const foreign = await other.begin();
    await expect(mine.eventStore.append(foreign, 'shop::order-1', [event])).rejects.toThrow(/memory database "default" was given a transaction of "reporting"/);
    await expect(mine.eventStore.append(foreign, 'shop::order-1', [event])).rejects.toThrow(TransactionStateError);
    const done = await mine.begin();
    await done.commit();
    await expect(mine.eventStore.append(done, 'shop::order-1', [event])).rejects.toThrow(/already committed/);
  });

  it('truncate forgets every event and snapshot', async () => {
    const provider = new MemoryProvider('default');
    const tx = await provider.begin();
    await provider.eventStore.append(tx, 'shop::order-1', [event]);
    await tx.commit();
    await provider.eventStore.saveSnapshot({ streamName: 'shop::order-1', version: 0, type: 'Shop.Order.v1', data: {} });
    await provider.truncate([]);
    expect(await provider.eventStore.streamVersion('shop::order-1')).toBe(-1);
    expect((await provider.eventStore.readCategory('$all')).events).toEqual([]);
    expect(await provider.eventStore.latestSnapshot('shop::order-1')).toBeNull();
  });
});
