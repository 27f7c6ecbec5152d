/**
 * The repository of an event-sourced aggregate. `add` appends the events raised since the
 * aggregate was loaded to its stream, with the version it was loaded at as the expected version,
 * inside the unit of work's transaction (the unit writes the same events to the outbox at
 * commit, as for any aggregate). `get` replays the stream through the `@apply` methods, from the
 * latest snapshot when there is one, and writes a new snapshot when a load replayed at least
 * `snapshot_threshold` events. A snapshot that fails its checks (snapshot-check.ts, the stream's
 * version, the aggregate's validation) is ignored with a WARN, the aggregate rebuilt from its
 * events and the snapshot replaced. As-of loads (`atVersion`, `asOf`) give read-only aggregates.
 */
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { ClassRef } from '../fields/field-definition.js';
import { identityValue } from '../elements/element-builder.js';
import { assertWritable, markReadOnly, replayEvents } from '../elements/event-sourced-change.js';
import { EventSourcedOperationError } from '../errors/event-sourced-operation.error.js';
import { UpcasterFailedError } from '../errors/upcaster-failed.error.js';
import { InvalidEventStoreRequestError } from '../errors/invalid-event-store-request.error.js';
import { ObjectNotFoundError } from '../errors/object-not-found.error.js';
import { getLogger } from '../logging/logger.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import type { Filter, QuerySpec } from '../ports/aggregate-dao.js';
import type { ProviderTransaction } from '../ports/database-provider.js';
import type { EventStore } from '../ports/event-store.js';
import { DEFAULT_PAGE_SIZE, type Snapshot, type StoredEvent } from '../ports/event-store-records.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { aggregateStreamName, envelopeOf, storeRecordOf } from './aggregate-stream.js';
import { Repository, type AsOfOptions, type RepositoryHost } from './repository.js';
import { checksumProblem, ownershipProblem } from './snapshot-check.js';

const log = getLogger('repository');

export interface EventSourcedRepositoryHost extends RepositoryHost {
  /** The event store of a database provider (`[event_store] database`). */
  eventStore(): { store: EventStore; provider: string };
  /** The registered event of a stored envelope (checksum checked). */
  deserializeEvent(envelope: MessageEnvelope): BaseEvent;
  streamCategoryOf(aggregate: ClassRef): string;
  /** `Domain.Class.v1`: what snapshots record, so snapshots of another aggregate are ignored. */
  snapshotType(aggregate: ClassRef): string;
  /** A load that replayed at least this many events writes a snapshot. */
  snapshotThreshold(): number;
}

/**
 * How many of an aggregate's pending events this unit of work already appended: they stay
 * pending until the unit commits, and a second `add` in the unit appends only the rest.
 */
const appendedInUnit = new WeakMap<BaseAggregate, { unit: UnitOfWork; count: number }>();

/** A stream's latest snapshot, checked: `problem` says why it cannot be trusted, else `aggregate` is built from it. */
export interface CheckedSnapshot<T> {
  stream: string;
  snapshot: Snapshot;
  problem: string | undefined;
  aggregate: T | undefined;
}

type AggregateBuilder<T> = { fromPlain(plain: Record<string, unknown>, options?: { version: number }): T };

export class EventSourcedRepository<T extends BaseAggregate> extends Repository<T> {
  declare protected readonly host: EventSourcedRepositoryHost;

  /** Appends the events raised since load; StreamVersionError (an ExpectedVersionError) when another writer appended first. */
  override async add(aggregate: T): Promise<T> {
    this.assertAggregate(aggregate);
    assertWritable(aggregate, 'be saved');
    const uow = this.host.activeUnitOfWork();
    if (!uow) return this.host.uow(() => this.add(aggregate));
    uow.track(aggregate, this.schema);
    const pending = aggregate.pendingEvents();
    const mark = appendedInUnit.get(aggregate);
    const already = mark?.unit === uow ? mark.count : 0;
    const fresh = pending.slice(already);
    if (fresh.length === 0) return aggregate;
    // The version the aggregate was loaded at, plus what this unit appended already.
    const expected = aggregate._version - pending.length + already;
    const { store, provider } = this.host.eventStore();
    const tx = await uow.transactionFor(provider);
    await store.append(tx, this.streamOf(aggregate), fresh.map(storeRecordOf), { expectedVersion: expected });
    appendedInUnit.set(aggregate, { unit: uow, count: pending.length });
    return aggregate;
  }

  /** The aggregate replayed from its stream; ObjectNotFoundError when the stream has no events (at that version or time). */
  override async get(id: string, options: AsOfOptions = {}): Promise<T> {
    const atVersion = options?.atVersion;
    if (atVersion !== undefined && (!Number.isSafeInteger(atVersion) || atVersion < 0)) {
      throw new InvalidEventStoreRequestError(
        `${this.schema.name} repository get`,
        'atVersion',
        `must be an integer >= 0 (a stream position), got ${String(atVersion)}`,
      );
    }
    const found = await this.load(String(id), atVersion, options?.asOf);
    if (!found) throw new ObjectNotFoundError(this.schema.name, String(id));
    return found;
  }

  override async find(id: string): Promise<T | undefined> {
    return this.load(String(id), undefined, undefined);
  }

  /**
   * Writes a snapshot of the aggregate at its stream's current version, whatever the threshold
   * (`protean-ts snapshot create`), by the same load that writes one at `snapshot_threshold`.
   * `written` is false when the latest snapshot is already at that version; undefined when the
   * stream has no events.
   */
  async writeSnapshot(id: string): Promise<{ version: number; written: boolean } | undefined> {
    let outcome: { version: number; written: boolean } | undefined;
    await this.load(String(id), undefined, undefined, (version, replayed) => {
      outcome = { version, written: replayed > 0 };
      return replayed > 0;
    });
    return outcome;
  }

  /**
   * The aggregate's latest snapshot and why a load would ignore it (`problem`), without loading
   * (`protean-ts snapshot verify`); undefined when the stream has no snapshot.
   */
  async checkSnapshot(id: string): Promise<{ stream: string; version: number; problem: string | undefined } | undefined> {
    const { store, provider } = this.host.eventStore();
    const tx = await this.readTransaction(this.host.activeUnitOfWork(), provider);
    const checked = await this.checkedSnapshot(store, String(id), tx);
    return checked && { stream: checked.stream, version: checked.snapshot.version, problem: checked.problem };
  }

  override query(_spec?: QuerySpec<T>): Promise<T[]> {
    return Promise.reject(new EventSourcedOperationError(this.schema.name, 'query'));
  }

  override count(_filter?: Filter<T>): Promise<number> {
    return Promise.reject(new EventSourcedOperationError(this.schema.name, 'count'));
  }

  override delete(_target: T | string): Promise<boolean> {
    return Promise.reject(new EventSourcedOperationError(this.schema.name, 'delete (an event stream is history; raise an event that marks it closed)'));
  }

  private async load(
    id: string,
    atVersion: number | undefined,
    asOf: Date | undefined,
    // Whether to save a snapshot after replaying `replayed` events up to `version`.
    shouldSnapshot: (version: number, replayed: number) => boolean = (_version, replayed) => replayed >= this.host.snapshotThreshold(),
  ): Promise<T | undefined> {
    const historical = atVersion !== undefined || asOf !== undefined;
    const { store, provider } = this.host.eventStore();
    const tx = await this.readTransaction(this.host.activeUnitOfWork(), provider);
    const blank = this.schema.aggregate as unknown as AggregateBuilder<T>;
    const stream = aggregateStreamName(this.host.streamCategoryOf(this.schema.aggregate), id);

    let aggregate: T | undefined;
    let version = -1;
    // A snapshot shows the current state only; as-of loads replay from the first event.
    const snapshot = historical ? undefined : await this.checkedSnapshot(store, id, tx);
    if (snapshot?.problem !== undefined) {
      log.warn(`snapshot of ${stream} at version ${snapshot.snapshot.version} ignored: ${snapshot.problem}; the aggregate is rebuilt from its events`, {
        stream,
        version: snapshot.snapshot.version,
        reason: snapshot.problem,
      });
    } else if (snapshot?.aggregate) {
      aggregate = snapshot.aggregate;
      version = snapshot.snapshot.version;
    }
    let replayed = 0;
    for (;;) {
      const page = await store.readStream(stream, { from: version + 1, limit: DEFAULT_PAGE_SIZE, until: asOf }, tx);
      const wanted = atVersion === undefined ? page : page.filter((record) => record.position <= atVersion);
      if (wanted.length) {
        aggregate ??= blank.fromPlain({ [this.schema.identityField]: id }, { version: -1 });
        replayEvents(
          aggregate,
          wanted.map((record) => this.eventOf(record)),
          wanted.at(-1)!.position,
        );
        version = wanted.at(-1)!.position;
        replayed += wanted.length;
      }
      if (page.length < DEFAULT_PAGE_SIZE || wanted.length < page.length) break;
    }
    if (!aggregate || (atVersion !== undefined && version !== atVersion)) return undefined;
    if (historical) {
      markReadOnly(aggregate);
      return aggregate;
    }
    // A snapshot found bad is replaced at once, so the next load need not rebuild again.
    const replace = snapshot?.problem !== undefined;
    if (shouldSnapshot(version, replayed) || replace) {
      const fresh = { streamName: stream, version, type: this.host.snapshotType(this.schema.aggregate), data: aggregate.toPlain() };
      await store.saveSnapshot(fresh, tx, { replace });
    }
    return aggregate;
  }

  /** The stream's latest snapshot and its checks: its owner, its version against the stream's, its checksum, then its data as the aggregate. */
  private async checkedSnapshot(store: EventStore, id: string, tx: ProviderTransaction | undefined): Promise<CheckedSnapshot<T> | undefined> {
    const stream = aggregateStreamName(this.host.streamCategoryOf(this.schema.aggregate), id);
    const snapshot = await store.latestSnapshot(stream, tx);
    if (!snapshot) return undefined;
    const owner = { stream, type: this.host.snapshotType(this.schema.aggregate), identityField: this.schema.identityField, id };
    const rejected = (problem: string): CheckedSnapshot<T> => ({ stream, snapshot, problem, aggregate: undefined });
    const notOwned = ownershipProblem(snapshot, owner);
    if (notOwned !== undefined) return rejected(notOwned);
    const current = await store.streamVersion(stream, tx);
    if (snapshot.version > current) return rejected(`its version ${snapshot.version} is beyond the stream's current version ${current}`);
    const altered = checksumProblem(snapshot);
    if (altered !== undefined) return rejected(altered);
    try {
      const aggregate = (this.schema.aggregate as unknown as AggregateBuilder<T>).fromPlain(snapshot.data, { version: snapshot.version });
      return { stream, snapshot, problem: undefined, aggregate };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return rejected(`its data does not validate as ${this.schema.name}: ${why}`);
    }
  }

  /** The registered event of a stored record; an upcaster's failure names the record's stream and position. */
  private eventOf(record: StoredEvent): BaseEvent {
    try {
      return this.host.deserializeEvent(envelopeOf(record));
    } catch (error) {
      throw error instanceof UpcasterFailedError ? error.at(record.streamName, record.position) : error;
    }
  }

  private streamOf(aggregate: T): string {
    return aggregateStreamName(this.host.streamCategoryOf(this.schema.aggregate), identityValue(aggregate) ?? '');
  }

  // Inside a unit, reads see its own appends; outside, they read what is committed.
  private async readTransaction(uow: UnitOfWork | undefined, provider: string): Promise<ProviderTransaction | undefined> {
    return uow ? uow.transactionFor(provider) : undefined;
  }
}
