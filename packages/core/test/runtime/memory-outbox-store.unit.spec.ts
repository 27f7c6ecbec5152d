import { describe, expect, it } from 'vitest';
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { InvalidOutboxRowError } from '../../src/errors/invalid-outbox-row.error.js';
import { TransactionStateError } from '../../src/errors/transaction-state.error.js';
import { describeOutboxStoreConformance } from '@protean-ts/conformance';
import { RowFactory } from '@protean-ts/conformance';

describeOutboxStoreConformance('memory', {
  async open() {
    const provider = new MemoryProvider('default');
    await provider.connect();
    await provider.setupOutbox();
    return provider;
  },
  async close(provider) {
    await provider.close();
  },
});

describe('memory outbox store specifics', () => {
  it('refuses a transaction opened by another provider', async () => {
    const a = new MemoryProvider('a');
    const b = new MemoryProvider('b');
    const tx = await b.begin();
    await expect(a.outbox.append(tx, [new RowFactory().row('k', 1)])).rejects.toThrow(TransactionStateError);
  });

  it('refuses appends to a finished transaction', async () => {
    const provider = new MemoryProvider('default');
    const tx = await provider.begin();
    await tx.commit();
    await expect(provider.outbox.append(tx, [new RowFactory().row('k', 1)])).rejects.toThrow(/already committed/);
  });

  it('names the bad field of an invalid row', async () => {
    const provider = new MemoryProvider('default');
    const tx = await provider.begin();
    const row = { ...new RowFactory().row('k', 1), maxRetries: -1 };
    await expect(provider.outbox.append(tx, [row])).rejects.toThrow(InvalidOutboxRowError);
    await expect(provider.outbox.append(tx, [{ ...row, maxRetries: 1, partitionKey: '' }])).rejects.toThrow(/partitionKey must be a non-empty string/);
  });

  it('stores a copy: changing the appended row or a listed row does not change the store', async () => {
    const provider = new MemoryProvider('default');
    const factory = new RowFactory();
    const row = factory.row('k', 1);
    const tx = await provider.begin();
    await provider.outbox.append(tx, [row]);
    (row.envelope.data as Record<string, unknown>).orderId = 'changed';
    await tx.commit();
    const [listed] = await provider.outbox.list({ limit: 10 });
    expect(listed!.envelope.data.orderId).toBe(factory.key('k'));
    listed!.status = 'published';
    expect((await provider.outbox.list({ limit: 10 }))[0]!.status).toBe('pending');
  });
});
