/**
 * Queries on PostgreSQL: `domain.dispatch` runs a query handler that reads a projection (written
 * by its projector after commit) and an aggregate, without a unit of work, and returns its
 * result; a query without a handler is a HandlerNotFoundError naming it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apply,
  BaseAggregate,
  BaseEvent,
  BaseProjection,
  BaseProjector,
  BaseQuery,
  BaseQueryHandler,
  configureLogging,
  Domain,
  field,
  HandlerNotFoundError,
  on,
  read,
} from '@protean-ts/core';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import type { PostgresProvider } from '../src/index.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

// A root of its own: no domain.toml up the tree joins the configuration.
const domain = new Domain('Reading', { root: fs.mkdtempSync(path.join(os.tmpdir(), 'protean-queries-')) });

@domain.aggregate({ eventSourced: true })
class Book extends BaseAggregate {
  @field.string() title?: string;
  @field.string() author?: string;

  static write(title: string, author: string): Book {
    const book = Book.create({});
    book.raise(Written.create({ bookId: book.id, title, author }));
    return book;
  }

  @apply(() => Written) onWritten(event: Written): void {
    this.title = event.title;
    this.author = event.author;
  }
}

@domain.event({ partOf: Book })
class Written extends BaseEvent {
  @field.identifier({ required: true }) bookId!: string;
  @field.string({ required: true }) title!: string;
  @field.string({ required: true }) author!: string;
}

@domain.projection()
class Shelf extends BaseProjection {
  @field.identifier({ identifier: true }) bookId!: string;
  @field.string({ required: true }) title!: string;
  @field.string({ required: true }) author!: string;
}

@domain.projector({ projectorFor: Shelf, aggregates: [Book] })
class ShelfProjector extends BaseProjector {
  @on(Written) async written(event: Written): Promise<void> {
    await domain.repositoryFor(Shelf).add(Shelf.create({ bookId: event.bookId, title: event.title, author: event.author }));
  }
}

@domain.query({ partOf: Shelf })
class BooksBy extends BaseQuery<string[]> {
  @field.string({ required: true }) author!: string;
}

@domain.query({ partOf: Shelf })
class Unanswered extends BaseQuery<number> {}

@domain.queryHandler({ partOf: Shelf })
class ShelfQueries extends BaseQueryHandler {
  @read(BooksBy) async booksBy(query: BooksBy): Promise<string[]> {
    const books = await domain.viewFor(Shelf).query({ filter: { author: query.author }, orderBy: { title: 'asc' } });
    return books.map((b) => b.title);
  }
}

describe.skipIf(!up)('queries on PostgreSQL', () => {
  let db: TempDatabase;
  let restoreLogging: ReturnType<typeof configureLogging>;

  beforeAll(async () => {
    void ShelfProjector;
    void ShelfQueries;
    restoreLogging = configureLogging({ sink: () => {} });
    db = await createTempDatabase('queries');
    await domain.init({
      config: {
        event_processing: 'sync',
        databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
        brokers: { default: { provider: 'inline' } },
      },
    });
    const provider = domain.providers.get('default') as PostgresProvider;
    await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  });
  afterAll(async () => {
    await domain.close();
    await db?.drop();
    configureLogging(restoreLogging);
  });

  it('dispatch answers from the projection its projector wrote, in the order the handler asks', async () => {
    for (const [title, author] of [
      ['Persuasion', 'Austen'],
      ['Emma', 'Austen'],
      ['Middlemarch', 'Eliot'],
    ] as const) {
      await domain.repositoryFor(Book).add(Book.write(title, author));
    }
    expect(await domain.dispatch(BooksBy.create({ author: 'Austen' }))).toEqual(['Emma', 'Persuasion']);
    expect(await domain.dispatch(BooksBy.create({ author: 'Nobody' }))).toEqual([]);
  });

  it('a query nobody answers is a HandlerNotFoundError naming it', async () => {
    await expect(domain.dispatch(Unanswered.create({}))).rejects.toThrow(HandlerNotFoundError);
    await expect(domain.dispatch(Unanswered.create({}))).rejects.toThrow(/Reading\.Unanswered/);
  });
});
