import { describe, expect, it } from 'vitest';
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { ExpectedVersionError } from '../../src/errors/expected-version.error.js';
import { TransactionStateError } from '../../src/errors/transaction-state.error.js';
import { UniqueViolationError } from '../../src/errors/unique-violation.error.js';
import { conformanceModel, describeAggregateDaoConformance } from '@protean-ts/conformance';

describeAggregateDaoConformance('memory', {
  async open(schemas) {
    const provider = new MemoryProvider('default');
    await provider.connect();
    await provider.setupSchema(schemas, { outbox: true });
    return provider;
  },
});

describe('memory DAO specifics', () => {
  const { Item, schema } = conformanceModel();

  it('finds a lost race at commit when two transactions update the same version', async () => {
    const provider = new MemoryProvider('default');
    const original = Item.create({ name: 'a' });
    await provider.dao(schema).save(original, -1);
    const tx1 = await provider.begin();
    const tx2 = await provider.begin();
    const one = (await provider.dao(schema, tx1).get(original.id))!;
    const two = (await provider.dao(schema, tx2).get(original.id))!;
    one.name = 'one';
    two.name = 'two';
    await provider.dao(schema, tx1).save(one, 0);
    await provider.dao(schema, tx2).save(two, 0);
    await tx1.commit();
    await expect(tx2.commit()).rejects.toThrow(ExpectedVersionError);
    expect((await provider.dao(schema).get(original.id))!.name).toBe('one');
  });

  it('finds a unique value taken by another transaction at commit', async () => {
    const provider = new MemoryProvider('default');
    const tx1 = await provider.begin();
    const tx2 = await provider.begin();
    await provider.dao(schema, tx1).save(Item.create({ name: 'a', sku: 'X' }), -1);
    await provider.dao(schema, tx2).save(Item.create({ name: 'b', sku: 'X' }), -1);
    await tx1.commit();
    await expect(tx2.commit()).rejects.toThrow(UniqueViolationError);
    expect(await provider.dao(schema).count()).toBe(1);
  });

  it('a commit that fails applies none of its writes', async () => {
    const provider = new MemoryProvider('default');
    const existing = Item.create({ name: 'existing' });
    await provider.dao(schema).save(existing, -1);
    const tx = await provider.begin();
    await provider.dao(schema, tx).save(Item.create({ name: 'new' }), -1);
    const stale = (await provider.dao(schema, tx).get(existing.id))!;
    stale.name = 'stale';
    await provider.dao(schema, tx).save(stale, 0);
    const other = (await provider.dao(schema).get(existing.id))!;
    other.name = 'other';
    await provider.dao(schema).save(other, 0);
    await expect(tx.commit()).rejects.toThrow(ExpectedVersionError);
    expect((await provider.dao(schema).query({ orderBy: { name: 'asc' } })).map((i) => i.name)).toEqual(['other']);
  });

  it('refuses work after the provider is closed or with a foreign transaction', async () => {
    const a = new MemoryProvider('a');
    const b = new MemoryProvider('b');
    expect(() => a.dao(schema, { providerName: 'b', commit: async () => {}, rollback: async () => {} })).toThrow(TransactionStateError);
    void b;
    await a.close();
    expect(await a.ping()).toBe(false);
    await expect(a.begin()).rejects.toThrow(/closed/);
    await a.connect();
    expect(await a.ping()).toBe(true);
  });

  it('reports, drops and truncates tables', async () => {
    const provider = new MemoryProvider('default');
    expect(await provider.setupSchema([schema], { outbox: true })).toEqual({
      created: ['conformance_item', 'conformance_part', 'conformance_label', 'outbox'],
      existing: [],
    });
    expect((await provider.setupSchema([schema], { outbox: false })).existing).toContain('conformance_item');
    await provider.dao(schema).save(Item.create({ name: 'a' }), -1);
    await provider.truncate([schema]);
    expect(await provider.dao(schema).count()).toBe(0);
    expect(await provider.dropSchema([schema])).toEqual(['conformance_item', 'conformance_part', 'conformance_label']);
  });
});
