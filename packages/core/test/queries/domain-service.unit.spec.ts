import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseDomainService, DomainModelError, Domain, field, invariant, ValidationError } from '../../src/index.js';
import { makeLibrary } from './library-domain.js';

function lending(borrowed = 0, copies = 1) {
  const library = makeLibrary();
  const book = library.Book.create({ title: 'Dune', author: 'Herbert', copies });
  const member = library.Member.create({ name: 'Ann', borrowed });
  return { ...library, book, member, service: new library.Lending(book, member) };
}

describe('domain services', () => {
  it('run the pre invariants before a public method and the post invariants after it', () => {
    const { service, book, member } = lending();
    service.lend();
    expect(service.calls).toEqual(['pre', 'lend', 'note:lent', 'post']);
    expect(book.copies).toBe(0);
    expect(member.borrowed).toBe(1);
  });

  it('refuse the call when a pre invariant fails, before the method changes anything', () => {
    const { service, book } = lending(2);
    expect(() => service.lend()).toThrow(ValidationError);
    try {
      service.lend();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).element).toBe('Lending');
      expect((error as ValidationError).errors).toEqual({ member: ['Ann has reached the limit of 2 books'] });
      expect((error as ValidationError).message).toBe('Invalid Lending: member: Ann has reached the limit of 2 books');
    }
    expect(service.calls).not.toContain('lend');
    expect(book.copies).toBe(1);
  });

  it('throw the ValidationError of a failing post invariant, after the method ran', () => {
    // One book left under the limit passes the pre invariant; lending two goes over it.
    const { service, member } = lending(1, 3);
    expect(() => service.lendTwice()).toThrow('Invalid Lending: member: Ann would hold 3 books, over the limit of 2');
    expect(service.calls.at(-1)).toBe('post');
    // The service does not undo the change: a use case's unit of work discards it by not saving.
    expect(member.borrowed).toBe(3);
  });

  it('report a post invariant failure with the service as the element', () => {
    const library = makeLibrary();
    class Shelf extends BaseDomainService {
      constructor(private readonly book: InstanceType<typeof library.Book>) {
        super(book);
      }
      @invariant.post() notEmpty(): void {
        if (this.book.copies === 0) throw new ValidationError({ copies: ['the shelf may not run empty'] });
      }
      take(): void {
        this.book.copies = this.book.copies! - 1;
      }
    }
    const shelf = new Shelf(library.Book.create({ title: 'Dune', author: 'Herbert', copies: 1 }));
    expect(() => shelf.take()).toThrow('Invalid Shelf: copies: the shelf may not run empty');
  });

  it('check the invariants once around nested public calls', () => {
    const { service } = lending(0, 3);
    service.lendTwice();
    expect(service.calls).toEqual(['pre', 'lendTwice', 'lend', 'note:lent', 'lend', 'note:lent', 'post']);
  });

  it('check the post invariants after an async method settles', async () => {
    const { service } = lending();
    const done = service.lendLater();
    expect(service.calls).toEqual(['pre', 'lendLater']);
    await expect(done).resolves.toBe('Dune to Ann');
    expect(service.calls).toEqual(['pre', 'lendLater', 'lend', 'note:lent', 'post']);
  });

  it('reject an async call whose post invariant fails', async () => {
    const library = makeLibrary();
    class Shelf extends BaseDomainService {
      constructor(private readonly book: InstanceType<typeof library.Book>) {
        super(book);
      }
      @invariant.post() notEmpty(): void {
        if (this.book.copies === 0) throw new ValidationError({ copies: ['the shelf may not run empty'] });
      }
      async take(): Promise<void> {
        await Promise.resolve();
        this.book.copies = this.book.copies! - 1;
      }
    }
    const shelf = new Shelf(library.Book.create({ title: 'Dune', author: 'Herbert', copies: 1 }));
    await expect(shelf.take()).rejects.toThrow(ValidationError);
  });

  it('check each of two concurrent async calls', async () => {
    const { service } = lending(0, 5);
    await Promise.all([service.lendLater(), service.lendLater()]);
    expect(service.calls.filter((c) => c === 'pre')).toHaveLength(2);
    expect(service.calls.filter((c) => c === 'post')).toHaveLength(2);
  });

  it('leave methods starting with _ unchecked', () => {
    const { service } = lending(2);
    service._internal();
    expect(service.calls).toEqual(['internal']);
  });

  it('let invariants call public helpers without recursing', () => {
    const library = makeLibrary();
    class Audit extends BaseDomainService {
      readonly log: string[] = [];
      @invariant.pre() checked(): void {
        this.log.push(`pre ${this.total()}`);
      }
      total(): number {
        return this.aggregates.length;
      }
      run(): void {
        this.log.push('run');
      }
    }
    const audit = new Audit(library.Book.create({ title: 'A', author: 'B' }), library.Member.create({ name: 'C' }));
    audit.run();
    expect(audit.log).toEqual(['pre 2', 'run']);
  });

  it('pass on what the method throws without running the post invariants', () => {
    const library = makeLibrary();
    class Failing extends BaseDomainService {
      readonly log: string[] = [];
      @invariant.post() after(): void {
        this.log.push('post');
      }
      run(): void {
        throw new Error('out of stock');
      }
    }
    const failing = new Failing(library.Book.create({ title: 'A', author: 'B' }));
    expect(() => failing.run()).toThrow('out of stock');
    expect(failing.log).toEqual([]);
  });

  it('keep the aggregates they were built around', () => {
    const { service, book, member } = lending();
    expect((service as unknown as { aggregates: unknown[] }).aggregates).toEqual([book, member]);
  });

  it('register with their aggregates', () => {
    const { domain, Lending, Book, Member } = makeLibrary();
    expect(domain.recordOf(Lending)).toMatchObject({ kind: 'domainService', options: { partOf: [Book, Member] } });
    expect(domain.validateModel()).toEqual([]);
  });
});

describe('domain.init() refuses a domain service', () => {
  function twoAggregates() {
    const domain = new Domain('Shop');
    @domain.aggregate()
    class Order extends BaseAggregate {
      @field.string() customer?: string;
    }
    @domain.aggregate()
    class Inventory extends BaseAggregate {}
    return { domain, Order, Inventory };
  }

  it('with one aggregate, naming it', () => {
    const { domain, Order } = twoAggregates();
    @domain.domainService({ partOf: [Order] })
    class Pricing extends BaseDomainService {}
    expect(domain.validateModel()).toEqual([
      'Pricing (domain service): partOf lists only Order; a domain service spans two or more aggregates (@domain.domainService({ partOf: [Order, Inventory] })); a rule of one aggregate belongs in that aggregate',
    ]);
    expect(() => domain.checkModel()).toThrow(DomainModelError);
    expect(Pricing).toBeTruthy();
  });

  it('without partOf, or with a single class instead of a list', () => {
    const { domain, Order } = twoAggregates();
    @domain.domainService({} as never)
    class Pricing extends BaseDomainService {}
    @domain.domainService({ partOf: Order } as never)
    class Discounts extends BaseDomainService {}
    expect(domain.validateModel()).toEqual([
      'Pricing (domain service): partOf lists no aggregate; a domain service spans two or more aggregates (@domain.domainService({ partOf: [Order, Inventory] })); a rule of one aggregate belongs in that aggregate',
      'Discounts (domain service): partOf lists only Order; a domain service spans two or more aggregates (@domain.domainService({ partOf: [Order, Inventory] })); a rule of one aggregate belongs in that aggregate',
    ]);
    expect(Pricing && Discounts).toBeTruthy();
  });

  it('with a partOf that is not a registered aggregate', () => {
    const { domain, Order } = twoAggregates();
    class Warehouse extends BaseAggregate {}
    @domain.domainService({ partOf: [Order, Warehouse] })
    class Placement extends BaseDomainService {}
    expect(domain.validateModel()).toEqual(['Placement (domain service): partOf Warehouse is not a registered aggregate']);
    expect(Placement).toBeTruthy();
  });
});
