/**
 * Given / when / then for aggregates:
 *
 *   await given(Account, [Opened.create(…), Deposited.create(…)])   // history, replayed
 *     .when((account) => account.withdraw(30))                        // a method call
 *     .then([Withdrawn.create(…)]);                                   // the events it raised
 *
 * `given` takes an aggregate (its state), or an aggregate class with the events of its past (an
 * event-sourced aggregate is rebuilt by applying them). `.in(domain)` runs the scenario through
 * a domain instead: the given aggregate is stored first and `.when(command)` processes the
 * command, and `then` checks the events that unit of work committed. `.then(ErrorClass)` (or
 * `thenFails`) expects a refusal. `.when(…).result` gives the outcome to look at.
 */
import { randomUUID } from 'node:crypto';
import {
  applyMarksOf,
  BaseCommand,
  fieldsOf,
  identityFieldOf,
  IMPLICIT_ID,
  type BaseAggregate,
  type BaseEvent,
  type ClassRef,
  type Domain,
} from '@protean-ts/core';
import { assertError, assertEvents, type ErrorClass } from './assertions.js';
import type { ExpectedEvent } from './event-view.js';
import { captureEvents } from './capture-events.js';

/** What the `when` step did: the events raised (or committed), the error it threw, the aggregate after it. */
export interface WhenOutcome<T extends BaseAggregate> {
  events: BaseEvent[];
  error: unknown;
  /** The aggregate after the step (in a domain: reloaded from its repository; undefined if it is gone). */
  aggregate: T | undefined;
  /** What the method or the command handler returned. */
  result: unknown;
}

type AggregateClass<T extends BaseAggregate> = ClassRef<T> & { fromPlain(plain: Record<string, unknown>, options?: { version?: number }): T };

export interface GivenOptions {
  /** The aggregate's identity when given events: default the first event's field named like the aggregate's identity field, else its identifier field. */
  id?: string;
}

export function given<T extends BaseAggregate>(aggregate: T): Scenario<T>;
export function given<T extends BaseAggregate>(aggregate: ClassRef<T>, history?: readonly BaseEvent[], options?: GivenOptions): Scenario<T>;
export function given<T extends BaseAggregate>(subject: T | ClassRef<T>, history: readonly BaseEvent[] = [], options: GivenOptions = {}): Scenario<T> {
  if (typeof subject === 'function') {
    // Built now, so a history that cannot apply fails where it is written.
    const arranged = fromHistory(subject as AggregateClass<T>, history, options);
    return new Scenario(() => arranged, null);
  }
  if (!subject || typeof subject !== 'object' || typeof (subject as BaseAggregate).pendingEvents !== 'function') {
    throw new TypeError(`given(…) takes an aggregate or an aggregate class with its past events, got ${String(subject)}`);
  }
  return new Scenario(() => ({ aggregate: subject, history: [] }), null);
}

interface Arranged<T extends BaseAggregate> {
  aggregate: T;
  /** Events to store with it (an event-sourced aggregate's history); [] for one given by its state. */
  history: BaseEvent[];
}

export class Scenario<T extends BaseAggregate> {
  constructor(
    private readonly arrange: () => Arranged<T>,
    private readonly domain: Domain | null,
  ) {}

  /** Run the scenario through `domain` (initialized): the given aggregate is stored, `when` may process a command. */
  in(domain: Domain): Scenario<T> {
    return new Scenario(this.arrange, domain);
  }

  /** A method call on the aggregate, or (with `.in(domain)`) a command processed synchronously. */
  when(step: ((aggregate: T) => unknown) | BaseCommand): WhenStep<T> {
    return new WhenStep(() => this.run(step));
  }

  private async run(step: ((aggregate: T) => unknown) | BaseCommand): Promise<WhenOutcome<T>> {
    const { aggregate, history } = this.arrange();
    if (step instanceof BaseCommand) {
      if (!this.domain) throw new TypeError(`when(${step.constructor.name}): a command needs a domain to process it; write given(…).in(domain).when(command)`);
      return this.runCommand(this.domain, aggregate, history, step);
    }
    if (typeof step !== 'function') throw new TypeError('when(…) takes a function calling the aggregate, or a command (with .in(domain))');
    if (this.domain)
      return this.runInDomain(this.domain, aggregate, history, () =>
        this.domain!.uow(async () => {
          const repository = this.domain!.repositoryFor(aggregate.constructor as ClassRef<T>);
          const loaded = await repository.get(aggregate.id);
          const result = await step(loaded);
          await repository.add(loaded);
          return result;
        }),
      );
    aggregate.clearPendingEvents();
    let result: unknown;
    let error: unknown;
    try {
      result = await step(aggregate);
    } catch (caught) {
      error = caught;
    }
    return { events: [...aggregate.pendingEvents()], error, aggregate, result };
  }

  private runCommand(domain: Domain, aggregate: T, history: BaseEvent[], command: BaseCommand): Promise<WhenOutcome<T>> {
    return this.runInDomain(domain, aggregate, history, () => domain.process(command));
  }

  private async runInDomain(domain: Domain, aggregate: T, history: BaseEvent[], act: () => Promise<unknown>): Promise<WhenOutcome<T>> {
    const repository = domain.repositoryFor(aggregate.constructor as ClassRef<T>);
    // A state is stored without events; an event-sourced aggregate's history is its stored events.
    if (!history.length) aggregate.clearPendingEvents();
    await repository.add(aggregate);
    const captured = captureEvents(domain);
    let result: unknown;
    let error: unknown;
    try {
      result = await act();
    } catch (caught) {
      error = caught;
    } finally {
      captured.stop();
    }
    return { events: [...captured.events], error, aggregate: await repository.find(aggregate.id), result };
  }
}

/** The `when` step: `.then(expected)` asserts; awaiting it gives the `WhenOutcome`. */
export class WhenStep<T extends BaseAggregate> {
  private outcome: Promise<WhenOutcome<T>> | undefined;

  constructor(private readonly act: () => Promise<WhenOutcome<T>>) {}

  /** Runs the step once, however often it is asserted on. */
  get result(): Promise<WhenOutcome<T>> {
    return (this.outcome ??= this.act());
  }

  /**
   * `then([events])`: the step succeeded and raised exactly these (instances: type and data;
   * classes: type only). `then(ErrorClass)`: it threw that error. Resolves with the outcome.
   * To look at the outcome without asserting, await `.result`.
   */
  then(expected: readonly ExpectedEvent[] | ErrorClass): Promise<WhenOutcome<T>>;
  then(expected: unknown, onRejected?: (reason: unknown) => unknown): Promise<unknown> {
    if (Array.isArray(expected)) return this.thenEvents(expected as readonly ExpectedEvent[]);
    if (isErrorClass(expected)) return this.thenFails(expected);
    // JavaScript's `await step` calls then(resolve, reject): it gets the outcome, as `.result` gives.
    if (typeof expected === 'function') return this.result.then(expected as (outcome: WhenOutcome<T>) => unknown, onRejected);
    throw new TypeError('then(…) takes the expected events (an array of events or event classes) or the expected error class');
  }

  /** The step succeeded and raised exactly these events. */
  async thenEvents(expected: readonly ExpectedEvent[]): Promise<WhenOutcome<T>> {
    const outcome = await this.result;
    if (outcome.error !== undefined) {
      const error = outcome.error;
      throw Object.assign(new Error(`expected events, but the step threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`), {
        cause: error,
      });
    }
    assertEvents(outcome.events, expected, 'events raised');
    return outcome;
  }

  /** The step threw `error` (with this message, when given). */
  async thenFails(error: ErrorClass, message?: string | RegExp): Promise<WhenOutcome<T>> {
    const outcome = await this.result;
    assertError(outcome.error, { error, ...(message !== undefined ? { message } : {}) });
    return outcome;
  }
}

function isErrorClass(value: unknown): value is ErrorClass {
  return typeof value === 'function' && (value === Error || value.prototype instanceof Error);
}

function fromHistory<T extends BaseAggregate>(cls: AggregateClass<T>, history: readonly BaseEvent[], options: GivenOptions): Arranged<T> {
  if (!history.length) return { aggregate: cls.fromPlain({ [identityName(cls)]: options.id ?? randomUUID() }, { version: -1 }), history: [] };
  if (applyMarksOf(cls).length === 0) {
    throw new TypeError(
      `given(${cls.name}, events): ${cls.name} is not event-sourced (it has no @apply methods), so it cannot be rebuilt from events; give an instance in its state instead: given(${cls.name}.create({ … }))`,
    );
  }
  const id = options.id ?? identityOfEvent(history[0]!, identityName(cls));
  if (id === undefined)
    throw new TypeError(`given(${cls.name}, events): ${history[0]!.constructor.name} has no identifier field to take ${cls.name}'s identity from; pass { id }`);
  const aggregate = cls.fromPlain({ [identityName(cls)]: id }, { version: -1 });
  // Raising applies each event through its @apply method, as a replay does; the events stay
  // pending, so a domain can store them as the aggregate's history.
  for (const event of history) aggregate.raise(event);
  const arranged = [...aggregate.pendingEvents()];
  return { aggregate, history: arranged };
}

function identityName(cls: ClassRef): string {
  return (identityFieldOf(cls) ?? IMPLICIT_ID).name;
}

/** The event's field named like the aggregate's identity (`sku`), else its identifier field (`accountId`). */
function identityOfEvent(event: BaseEvent, identity: string): string | undefined {
  const fields = fieldsOf(event.constructor as ClassRef);
  const field = fields.find((f) => f.name === identity) ?? fields.find((f) => f.identifier) ?? fields.find((f) => f.kind === 'identifier');
  const value = field ? (event as unknown as Record<string, unknown>)[field.name] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}
