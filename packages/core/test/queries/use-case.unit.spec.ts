import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BaseApplicationService, configureLogging, DomainNotInitializedError, RegistrationError, useCase } from '../../src/index.js';
import { makeLibrary, memoryConfig } from './library-domain.js';

type Library = ReturnType<typeof makeLibrary>;

describe('@useCase application service methods', () => {
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

  const books = () => library.domain.repositoryFor(library.Book);

  it('run in a unit of work and commit what they save', async () => {
    const catalogue = new library.Catalogue();
    await expect(catalogue.inUnitOfWork()).resolves.toBe(true);
    await expect(catalogue.plain()).resolves.toBe(false);
    const id = await catalogue.addBook('Dune', 'Herbert');
    expect((await books().get(id)).title).toBe('Dune');
  });

  it('roll back everything they saved when they throw', async () => {
    await expect(new library.Catalogue().addAndFail('Lost')).rejects.toThrow('the use case gave up after saving');
    expect(await books().count()).toBe(0);
  });

  it('join the unit of work of a calling use case', async () => {
    const catalogue = new library.Catalogue();
    const ids = await catalogue.addSeries('Le Guin', ['A Wizard of Earthsea', 'The Tombs of Atuan']);
    expect(ids).toHaveLength(2);
    expect(await books().count()).toBe(2);
  });

  it('join an outer domain.uow: nothing commits when the outer one fails', async () => {
    const catalogue = new library.Catalogue();
    const attempt = library.domain.uow(async () => {
      await catalogue.addBook('Dune', 'Herbert');
      throw new Error('outer work failed');
    });
    await expect(attempt).rejects.toThrow('outer work failed');
    expect(await books().count()).toBe(0);
  });

  it('keep this and the arguments of the method', async () => {
    const catalogue = new library.Catalogue();
    const [first] = await catalogue.addSeries('Herbert', ['Dune']);
    expect((await books().get(first!)).author).toBe('Herbert');
    expect(library.Catalogue.prototype.addBook.name).toBe('addBook');
  });
});

describe('@useCase outside an initialized, registered service', () => {
  it('refuses a use case of a class registered with no domain, naming it', async () => {
    class Unregistered extends BaseApplicationService {
      @useCase() async run(): Promise<number> {
        return 1;
      }
    }
    await expect(new Unregistered().run()).rejects.toThrow(RegistrationError);
    await expect(new Unregistered().run()).rejects.toThrow(
      'Unregistered.run is a @useCase, but Unregistered is not registered with a domain; decorate it with @domain.applicationService()',
    );
  });

  it('needs the domain initialized', async () => {
    const { Catalogue } = makeLibrary();
    await expect(new Catalogue().addBook('Dune', 'Herbert')).rejects.toThrow(DomainNotInitializedError);
  });
});
