/**
 * A small library model for the query, domain service and use case tests. `makeLibrary()`
 * builds a fresh Domain with its own classes each call, so tests never share registrations.
 */
import {
  BaseAggregate,
  BaseApplicationService,
  BaseDomainService,
  BaseQuery,
  BaseQueryHandler,
  Domain,
  field,
  invariant,
  read,
  useCase,
  ValidationError,
} from '../../src/index.js';

export function makeLibrary(name = 'Library') {
  const domain = new Domain(name);
  const reads: string[] = [];

  @domain.aggregate()
  class Book extends BaseAggregate {
    @field.string({ required: true, maxLength: 100 }) title!: string;
    @field.string({ required: true }) author!: string;
    @field.integer({ min: 0, default: 1 }) copies?: number;
  }

  @domain.aggregate()
  class Member extends BaseAggregate {
    @field.string({ required: true }) name!: string;
    @field.integer({ min: 0, default: 0 }) borrowed?: number;
    @field.integer({ min: 0, default: 2 }) limit?: number;
  }

  @domain.query({ partOf: Book })
  class BooksByAuthor extends BaseQuery<{ title: string; copies: number }[]> {
    @field.string({ required: true }) author!: string;
    @field.integer({ min: 1, max: 100, default: 10 }) limit?: number;
  }

  @domain.query({ partOf: Book })
  class BookCount extends BaseQuery<number> {}

  @domain.query({ partOf: Book })
  class Broken extends BaseQuery<string> {}

  @domain.query({ partOf: Book })
  class Unanswered extends BaseQuery<string> {}

  @domain.queryHandler({ partOf: Book })
  class BookQueries extends BaseQueryHandler {
    @read(BooksByAuthor) async byAuthor(query: BooksByAuthor) {
      reads.push(`byAuthor:${query.author}`);
      const books = await domain.repositoryFor(Book).query({ filter: { author: query.author }, orderBy: { title: 'asc' }, limit: query.limit });
      return books.map((b) => ({ title: b.title, copies: b.copies! }));
    }

    // A synchronous answer is awaited like an asynchronous one.
    @read(BookCount) count(): number {
      reads.push(`count:${domain.runtime.units.active() ? 'in a unit of work' : 'no unit of work'}`);
      return 42;
    }

    @read(Broken) broken(): string {
      throw new Error('the catalogue index is being rebuilt');
    }
  }

  /** Lending spans a book and a member: neither aggregate alone knows both limits. */
  @domain.domainService({ partOf: [Book, Member] })
  class Lending extends BaseDomainService {
    readonly calls: string[] = [];

    constructor(
      private readonly book: Book,
      private readonly member: Member,
    ) {
      super(book, member);
    }

    @invariant.pre() memberMayBorrow(): void {
      this.calls.push('pre');
      const { name, borrowed, limit } = this.member;
      if (borrowed! >= limit!) throw new ValidationError({ member: [`${name} has reached the limit of ${limit} books`] });
    }

    @invariant.post() withinLimit(): void {
      this.calls.push('post');
      const { name, borrowed, limit } = this.member;
      if (borrowed! > limit!) throw new ValidationError({ member: [`${name} would hold ${borrowed} books, over the limit of ${limit}`] });
    }

    lend(): void {
      this.calls.push('lend');
      this.member.borrowed = this.member.borrowed! + 1;
      this.book.copies = this.book.copies! - 1;
      this.note('lent');
    }

    lendTwice(): void {
      this.calls.push('lendTwice');
      this.lend();
      this.lend();
    }

    async lendLater(): Promise<string> {
      this.calls.push('lendLater');
      await Promise.resolve();
      this.lend();
      return `${this.book.title} to ${this.member.name}`;
    }

    /** Public: checked like any public method. */
    note(what: string): void {
      this.calls.push(`note:${what}`);
    }

    _internal(): void {
      this.calls.push('internal');
    }
  }

  @domain.applicationService({ partOf: Book })
  class Catalogue extends BaseApplicationService {
    @useCase() async addBook(title: string, author: string): Promise<string> {
      const book = Book.create({ title, author });
      await domain.repositoryFor(Book).add(book);
      return book.id;
    }

    @useCase() async addSeries(author: string, titles: string[]): Promise<string[]> {
      const ids: string[] = [];
      // A use case calling another joins its unit of work: all titles commit or none.
      for (const title of titles) ids.push(await this.addBook(title, author));
      return ids;
    }

    @useCase() async addAndFail(title: string): Promise<void> {
      await domain.repositoryFor(Book).add(Book.create({ title, author: 'Nobody' }));
      throw new Error('the use case gave up after saving');
    }

    /** Not a use case: no unit of work of its own. */
    async plain(): Promise<boolean> {
      return domain.runtime.units.active() !== undefined;
    }

    @useCase() async inUnitOfWork(): Promise<boolean> {
      return domain.runtime.units.active() !== undefined;
    }
  }

  return { domain, reads, Book, Member, BooksByAuthor, BookCount, Broken, Unanswered, BookQueries, Lending, Catalogue };
}

export function memoryConfig(): Record<string, unknown> {
  return { databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } };
}
