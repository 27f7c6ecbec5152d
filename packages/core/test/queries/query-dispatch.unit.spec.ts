import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configureLogging,
  DomainNotInitializedError,
  HandlerNotFoundError,
  ImmutableElementError,
  RegistrationError,
  ValidationError,
} from '../../src/index.js';
import { makeLibrary, memoryConfig } from './library-domain.js';

type Library = ReturnType<typeof makeLibrary>;

describe('queries', () => {
  it('are validated on create, with every bad field reported', () => {
    const { BooksByAuthor } = makeLibrary();
    expect(() => BooksByAuthor.create({ author: '', limit: 0 } as never)).toThrow(ValidationError);
    try {
      BooksByAuthor.create({ limit: 500 } as never);
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).element).toBe('BooksByAuthor');
      expect(Object.keys((error as ValidationError).errors).sort()).toEqual(['author', 'limit']);
    }
    expect(BooksByAuthor.create({ author: 'Le Guin' }).limit).toBe(10);
  });

  it('are immutable after create', () => {
    const { BooksByAuthor } = makeLibrary();
    const query = BooksByAuthor.create({ author: 'Le Guin' });
    expect(() => {
      (query as { author: string }).author = 'Herbert';
    }).toThrow(ImmutableElementError);
    expect(query.author).toBe('Le Guin');
  });

  it('are equal by class and data', () => {
    const { BooksByAuthor, BookCount } = makeLibrary();
    expect(BooksByAuthor.create({ author: 'A' }).equals(BooksByAuthor.create({ author: 'A' }))).toBe(true);
    expect(BooksByAuthor.create({ author: 'A' }).equals(BooksByAuthor.create({ author: 'B' }))).toBe(false);
    expect(BookCount.create().equals(BooksByAuthor.create({ author: 'A' }))).toBe(false);
  });

  it('register as query and query handler records with their partOf', () => {
    const { domain, Book, BooksByAuthor, BookQueries } = makeLibrary();
    expect(domain.recordOf(BooksByAuthor)).toMatchObject({ kind: 'query', name: 'BooksByAuthor', options: { partOf: Book } });
    expect(domain.recordOf(BookQueries)).toMatchObject({ kind: 'queryHandler', options: { partOf: Book } });
    expect(domain.validateModel()).toEqual([]);
  });
});

describe('domain.dispatch', () => {
  let library: Library;
  let restoreLogging: ReturnType<typeof configureLogging>;

  beforeEach(async () => {
    restoreLogging = configureLogging({ sink: () => {} });
    library = makeLibrary();
    await library.domain.init({ config: memoryConfig() });
  });
  afterEach(async () => {
    await library.domain.close();
    configureLogging(restoreLogging);
  });

  async function addBooks(): Promise<void> {
    const books = library.domain.repositoryFor(library.Book);
    await books.add(library.Book.create({ title: 'The Dispossessed', author: 'Le Guin', copies: 2 }));
    await books.add(library.Book.create({ title: 'A Wizard of Earthsea', author: 'Le Guin' }));
    await books.add(library.Book.create({ title: 'Dune', author: 'Herbert' }));
  }

  it("runs the query's @read method and returns its answer", async () => {
    await addBooks();
    const answer = await library.domain.dispatch(library.BooksByAuthor.create({ author: 'Le Guin' }));
    expect(answer).toEqual([
      { title: 'A Wizard of Earthsea', copies: 1 },
      { title: 'The Dispossessed', copies: 2 },
    ]);
    expect(library.reads).toEqual(['byAuthor:Le Guin']);
  });

  it('passes the query to the handler (its fields decide the answer)', async () => {
    await addBooks();
    const answer = await library.domain.dispatch(library.BooksByAuthor.create({ author: 'Le Guin', limit: 1 }));
    expect(answer).toEqual([{ title: 'A Wizard of Earthsea', copies: 1 }]);
  });

  it('returns a synchronous answer as a promise of it', async () => {
    await expect(library.domain.dispatch(library.BookCount.create())).resolves.toBe(42);
  });

  it('starts no unit of work', async () => {
    await library.domain.dispatch(library.BookCount.create());
    expect(library.reads).toEqual(['count:no unit of work']);
  });

  it('reads through the unit of work it is called in, without committing or ending it', async () => {
    const { domain, Book, BooksByAuthor } = library;
    await domain.uow(async () => {
      await domain.repositoryFor(Book).add(Book.create({ title: 'Solaris', author: 'Lem' }));
      const before = domain.runtime.units.active();
      await domain.dispatch(BooksByAuthor.create({ author: 'Lem' }));
      await domain.dispatch(library.BookCount.create());
      expect(domain.runtime.units.active()).toBe(before);
    });
    expect(library.reads).toEqual(['byAuthor:Lem', 'count:in a unit of work']);
    expect(await domain.dispatch(BooksByAuthor.create({ author: 'Lem' }))).toEqual([{ title: 'Solaris', copies: 1 }]);
  });

  it('throws HandlerNotFoundError naming the query when no handler answers it', async () => {
    const attempt = library.domain.dispatch(library.Unanswered.create());
    await expect(attempt).rejects.toThrow(HandlerNotFoundError);
    await expect(library.domain.dispatch(library.Unanswered.create())).rejects.toThrow(
      'No handler for Library.Unanswered in domain "Library": add a method decorated with @read(Unanswered) to a @domain.queryHandler class',
    );
  });

  it('refuses what is not a query, naming it', async () => {
    await expect(library.domain.dispatch({ author: 'Le Guin' } as never)).rejects.toThrow(
      'domain.dispatch takes a query (an instance of a @domain.query class extending BaseQuery), got an object (Object); commands go to domain.process',
    );
    await expect(library.domain.dispatch(library.Book.create({ title: 'X', author: 'Y' }) as never)).rejects.toThrow(/got an object \(Book\)/);
    await expect(library.domain.dispatch(undefined as never)).rejects.toThrow(TypeError);
  });

  it('refuses a query class registered with another domain', async () => {
    const other = makeLibrary('Other');
    await expect(library.domain.dispatch(other.BookCount.create())).rejects.toThrow(RegistrationError);
    await expect(library.domain.dispatch(other.BookCount.create())).rejects.toThrow(
      'BookCount is not a registered query of domain "Library"; decorate it with @domain.query({ partOf: ... })',
    );
  });

  it('passes on what the handler throws', async () => {
    await expect(library.domain.dispatch(library.Broken.create())).rejects.toThrow('the catalogue index is being rebuilt');
  });
});

describe('domain.dispatch before init', () => {
  it('throws DomainNotInitializedError naming the query', async () => {
    const { domain, BookCount } = makeLibrary();
    await expect(domain.dispatch(BookCount.create())).rejects.toThrow(DomainNotInitializedError);
    await expect(domain.dispatch(BookCount.create())).rejects.toThrow(
      'Domain "Library" is not initialized: call "await domain.init()" before dispatching BookCount',
    );
  });
});
