/**
 * The element registry of one Domain: records per class with defaults applied, and the lookups
 * the runtime needs (records by kind, message classes by type, handlers of a message type,
 * stream categories, identity generation). It is the ElementHost elements see.
 */
import { randomUUID } from 'node:crypto';
import type { ClassRef } from '../fields/field-definition.js';
import type { ElementKind } from '../elements/element-kind.js';
import { attachHost, type ElementHost, type MessageContext, type MessageTypeInfo } from '../elements/element-host.js';
import { handleMarksOf } from '../elements/handle.js';
import { RegistrationError } from '../errors/registration.error.js';
import { resolveRecord, type ElementOptionsByKind } from './element-defaults.js';
import type { AggregateRecord, ElementRecord, HandlerRecord, MessageRecord, RecordOfKind } from './element-record.js';
import { inferElementKind } from './infer-element-kind.js';
import { deliveryRecordOf } from './projector-view.js';

/** A handler class and the methods it runs for one message type. */
export interface HandlerBinding {
  readonly record: HandlerRecord;
  readonly cls: ClassRef;
  readonly methods: readonly string[];
}

export interface RegistryOptions {
  identityFunction?: () => string;
}

export class ElementRegistry implements ElementHost {
  private readonly records = new Map<ClassRef, ElementRecord>();
  private frozen = false;
  private contextProvider: (() => MessageContext | undefined) | undefined;
  private handlerIndex: Map<string, HandlerBinding[]> | undefined;
  private messageIndex: Map<string, MessageRecord> | undefined;

  constructor(
    readonly domainName: string,
    private readonly options: RegistryOptions = {},
  ) {
    if (typeof domainName !== 'string' || domainName.trim() === '') throw new RegistrationError('A Domain needs a non-empty name: new Domain("Shop")');
    if (options.identityFunction !== undefined && typeof options.identityFunction !== 'function') {
      throw new RegistrationError(`Domain "${domainName}": identityFunction must be a function returning a string`);
    }
  }

  // --- registration ---------------------------------------------------------------------

  register<K extends ElementKind>(kind: K, cls: ClassRef, options?: ElementOptionsByKind[K]): RecordOfKind<K> {
    if (this.frozen) throw new RegistrationError(`Domain "${this.domainName}" is initialized; register ${cls?.name} before domain.init()`);
    if (typeof cls !== 'function') throw new RegistrationError(`Domain "${this.domainName}": only classes can be registered, got ${typeof cls}`);
    const actual = inferElementKind(cls);
    if (actual !== kind) {
      throw new RegistrationError(
        `${cls.name} cannot be registered as ${kind}: ${actual ? `it extends the base of ${actual}` : 'it extends no protean-ts base class'} (extend the matching Base class)`,
      );
    }
    const existing = this.records.get(cls);
    if (existing) throw new RegistrationError(`${cls.name} is already registered with domain "${this.domainName}" as ${existing.kind}`);
    const record = resolveRecord(kind, cls, options, this.domainName);
    this.records.set(cls, record);
    attachHost(cls, this);
    this.handlerIndex = undefined;
    this.messageIndex = undefined;
    return record as RecordOfKind<K>;
  }

  /** Stops registration; called by `domain.init()` once the model checks out. */
  freeze(): void {
    this.frozen = true;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  // --- records ----------------------------------------------------------------------------

  recordOf(cls: ClassRef): ElementRecord | undefined {
    return this.records.get(cls);
  }

  /** The record of `cls`, which must be registered (as `kind`, when given). */
  requireRecord<K extends ElementKind>(cls: ClassRef, kind: K): RecordOfKind<K>;
  requireRecord(cls: ClassRef): ElementRecord;
  requireRecord(cls: ClassRef, kind?: ElementKind): ElementRecord {
    const record = this.records.get(cls);
    if (!record)
      throw new RegistrationError(
        `${cls?.name ?? String(cls)} is not registered with domain "${this.domainName}"; decorate it (e.g. @domain.${kind ?? 'aggregate'}()) or call domain.register()`,
      );
    if (kind && record.kind !== kind) throw new RegistrationError(`${cls.name} is registered as ${record.kind}, not as ${kind}`);
    return record;
  }

  recordsOf<K extends ElementKind>(kind: K): RecordOfKind<K>[] {
    return [...this.records.values()].filter((r): r is RecordOfKind<K> => r.kind === kind);
  }

  allRecords(): ElementRecord[] {
    return [...this.records.values()];
  }

  // --- ElementHost --------------------------------------------------------------------------

  newIdentity(): string {
    const id = this.options.identityFunction ? this.options.identityFunction() : randomUUID();
    if ((typeof id !== 'string' || id === '') && typeof id !== 'number') {
      throw new RegistrationError(`Domain "${this.domainName}": identityFunction returned ${JSON.stringify(id)}; it must return a non-empty string`);
    }
    return String(id);
  }

  /** Throws when domain.toml asks for `identity_strategy = "function"` and no identityFunction was given. */
  checkIdentityStrategy(strategy: 'uuid' | 'function'): void {
    if (strategy === 'function' && !this.options.identityFunction) {
      throw new RegistrationError(
        `Domain "${this.domainName}": identity_strategy = "function" needs new Domain("${this.domainName}", { identityFunction: () => ... })`,
      );
    }
  }

  streamCategoryOf(aggregate: ClassRef): string {
    return this.requireRecord(aggregate, 'aggregate').options.streamCategory;
  }

  isEventSourced(aggregate: ClassRef): boolean {
    const record = this.records.get(aggregate);
    return record?.kind === 'aggregate' && record.options.isEventSourced;
  }

  messageInfo(message: ClassRef): MessageTypeInfo {
    const record = this.requireRecord(message);
    if (record.kind !== 'event' && record.kind !== 'command')
      throw new RegistrationError(`${message.name} is registered as ${record.kind}, not as an event or command`);
    const partOf = record.options.partOf;
    const aggregate = partOf ? this.records.get(partOf) : undefined;
    const fqn = `${this.domainName}.${record.name}`;
    return {
      kind: record.kind === 'event' ? 'EVENT' : 'COMMAND',
      fqn,
      type: `${fqn}.v${record.options.version}`,
      version: record.options.version,
      published: record.options.published,
      partOf,
      streamCategory: record.options.streamCategory ?? (aggregate?.kind === 'aggregate' ? aggregate.options.streamCategory : undefined),
    };
  }

  messageContext(): MessageContext | undefined {
    return this.contextProvider?.();
  }

  /** The runtime supplies the correlation data of the message its unit of work is handling. */
  setMessageContextProvider(provider: (() => MessageContext | undefined) | undefined): void {
    this.contextProvider = provider;
  }

  // --- lookups for the runtime --------------------------------------------------------------

  /** `<Domain>.<Name>.v<N>` of a registered event or command class. */
  messageTypeOf(message: ClassRef): string {
    return this.messageInfo(message).type;
  }

  /** The registered event or command class whose type is `type`. */
  messageClassFor(type: string): ClassRef | undefined {
    return this.messages().get(type)?.cls;
  }

  private messages(): Map<string, MessageRecord> {
    if (!this.messageIndex) {
      this.messageIndex = new Map();
      for (const r of this.records.values()) if (r.kind === 'event' || r.kind === 'command') this.messageIndex.set(this.messageTypeOf(r.cls), r);
    }
    return this.messageIndex;
  }

  /** The handler classes (and their methods) for a message type, in registration order. */
  handlersFor(type: string): readonly HandlerBinding[] {
    if (!this.handlerIndex) {
      const index = new Map<string, HandlerBinding[]>();
      for (const element of this.records.values()) {
        // Projectors are bound as event handlers (projector-view.ts).
        const record = deliveryRecordOf(element);
        if (!record) continue;
        for (const [messageType, methods] of this.handlerMethodsOf(record.cls)) {
          const list = index.get(messageType) ?? [];
          list.push({ record, cls: record.cls, methods });
          index.set(messageType, list);
        }
      }
      this.handlerIndex = index;
    }
    return this.handlerIndex.get(type) ?? [];
  }

  /** Message type to method names for one handler class; unregistered message classes are left out. */
  handlerMethodsOf(handler: ClassRef): Map<string, string[]> {
    const byType = new Map<string, string[]>();
    for (const mark of handleMarksOf(handler)) {
      const record = this.records.get(mark.message);
      if (!record || (record.kind !== 'event' && record.kind !== 'command')) continue;
      const type = this.messageTypeOf(mark.message);
      byType.set(type, [...(byType.get(type) ?? []), mark.method]);
    }
    return byType;
  }

  /** The stream category a handler subscribes to, or undefined when it has none (a model error). */
  handlerStreamCategory(handler: ClassRef): string | undefined {
    const record = this.requireRecord(handler);
    if (record.kind !== 'commandHandler' && record.kind !== 'eventHandler')
      throw new RegistrationError(`${handler.name} is registered as ${record.kind}, not as a handler`);
    const { streamCategory, partOf } = record.options;
    if (typeof streamCategory === 'string') return streamCategory;
    const aggregate = streamCategory ?? partOf;
    const target = aggregate ? this.records.get(aggregate) : undefined;
    return target?.kind === 'aggregate' ? target.options.streamCategory : undefined;
  }

  /**
   * The stream categories a process manager follows: those of its `aggregates` (unregistered ones
   * left out; the model check names them) and its `streamCategories`, without repeats.
   */
  processManagerCategories(manager: ClassRef): string[] {
    const record = this.requireRecord(manager, 'processManager');
    const categories = record.options.aggregates.flatMap((aggregate) => {
      const target = this.records.get(aggregate);
      return target?.kind === 'aggregate' ? [target.options.streamCategory] : [];
    });
    return [...new Set([...categories, ...record.options.streamCategories])];
  }

  /** The event-sourced aggregate whose events make up `category` in the event store; undefined when none. */
  eventSourcedAggregateOf(category: string): AggregateRecord | undefined {
    return this.recordsOf('aggregate').find((record) => record.options.isEventSourced && record.options.streamCategory === category);
  }

  /**
   * The stream categories a projector follows: its aggregates' categories, then its
   * `streamCategories`, without repeats. Unregistered aggregates are left out (a model error).
   */
  projectorCategories(projector: ClassRef): string[] {
    const record = this.requireRecord(projector, 'projector');
    const fromAggregates = record.options.aggregates.flatMap((aggregate) => {
      const target = this.records.get(aggregate);
      return target?.kind === 'aggregate' ? [target.options.streamCategory] : [];
    });
    return [...new Set([...fromAggregates, ...record.options.streamCategories])];
  }

  /**
   * A projector's subscriptions, one per category it follows: named after the projector when it
   * follows one category, `<Projector>-<category>` when several, so each has its own consumer
   * group, inbox and event-store cursor.
   */
  projectorSubscriptions(projector: ClassRef): { name: string; category: string }[] {
    const record = this.requireRecord(projector, 'projector');
    const categories = this.projectorCategories(projector);
    return categories.map((category) => ({ name: categories.length === 1 ? record.name : `${record.name}-${category}`, category }));
  }

  /** The projectors that write `projection`, in registration order. */
  projectorsOf(projection: ClassRef): RecordOfKind<'projector'>[] {
    return this.recordsOf('projector').filter((record) => record.options.projectorFor === projection);
  }

  /** The aggregate an element belongs to: itself for an aggregate, else its partOf (through entities). */
  aggregateOf(cls: ClassRef): AggregateRecord | undefined {
    const seen = new Set<ClassRef>();
    for (let current: ClassRef | undefined = cls; current && !seen.has(current);) {
      seen.add(current);
      const record = this.records.get(current);
      if (!record) return undefined;
      if (record.kind === 'aggregate') return record;
      current = 'partOf' in record.options ? (record.options.partOf as ClassRef | undefined) : undefined;
    }
    return undefined;
  }
}
