/**
 * The upcasters of a domain: registered with `@domain.upcaster({ event, from, to })`, checked by
 * `domain.init()` (see upcaster-check.ts), and run on read when a stored event's type names an
 * older version of a registered event: `Bank.Deposited.v1` becomes `Bank.Deposited.v3` through
 * the v1 → v2 and v2 → v3 upcasters. The stored record is never changed.
 */
import type { Upcaster, UpcasterClass, UpcasterOptions } from '../elements/upcaster.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageEnvelope, MessageMetadata } from '../messages/envelope.js';
import { RegistrationError } from '../errors/registration.error.js';
import { MissingUpcasterError } from '../errors/missing-upcaster.error.js';
import { InvalidUpcastResultError } from '../errors/invalid-upcast-result.error.js';
import { UpcasterFailedError } from '../errors/upcaster-failed.error.js';
import type { EventRecord } from '../registry/element-record.js';
import type { ElementRegistry } from '../registry/registry.js';
import { upcasterProblems } from './upcaster-check.js';
import type { UpcasterEntry } from './upcaster-entry.js';

const VERSIONED_TYPE = /^(.+)\.v(\d+)$/;

export class Upcasters {
  private readonly entries: UpcasterEntry[] = [];
  private byFqn: Map<string, EventRecord> | undefined;
  private readonly instances = new Map<UpcasterClass, Upcaster>();

  constructor(private readonly registry: ElementRegistry) {}

  register(cls: UpcasterClass, options: UpcasterOptions): void {
    const name = cls?.name ?? String(cls);
    if (this.registry.isFrozen)
      throw new RegistrationError(`Domain "${this.registry.domainName}" is initialized; register upcaster ${name} before domain.init()`);
    if (typeof cls !== 'function' || typeof (cls.prototype as Partial<Upcaster>)?.upcast !== 'function') {
      throw new RegistrationError(`${name} cannot be an upcaster: it has no upcast(data, metadata) method`);
    }
    if (!options || typeof options !== 'object') throw new RegistrationError(`${name}: @domain.upcaster needs { event, from, to }`);
    this.entries.push({ cls, event: options.event, from: options.from, to: options.to });
  }

  /** The registered steps of one event class (`from` → `to`), in registration order: what `protean-ts schema check` follows. */
  stepsOf(event: ClassRef): { from: number; to: number }[] {
    return this.entries.filter((entry) => entry.event === event).map((entry) => ({ from: entry.from, to: entry.to }));
  }

  /** Every problem of the registered upcasters, one line each (for `domain.init()`). */
  problems(): string[] {
    return upcasterProblems(this.registry, this.entries);
  }

  /**
   * The stored envelope as the current version of its event, or undefined when its type is not
   * an older version of a registered event (a newer one stays an UnknownMessageTypeError: a
   * version not deployed yet). The envelope's checksum must have been
   * checked already: it covers the stored data, not the upcast data, so it is dropped.
   */
  upcastStored(envelope: MessageEnvelope): MessageEnvelope | undefined {
    const storedType = envelope.metadata.headers.type;
    const match = VERSIONED_TYPE.exec(storedType);
    const record = match ? this.eventsByFqn().get(match[1]!) : undefined;
    if (!match || !record) return undefined;
    const storedVersion = Number(match[2]);
    const current = record.options.version;
    if (!Number.isSafeInteger(storedVersion) || storedVersion >= current) return undefined;

    const metadata = structuredClone(envelope.metadata) as MessageMetadata;
    let data = structuredClone(envelope.data) as Record<string, unknown>;
    let version = storedVersion;
    while (version !== current) {
      const step = this.entries.find((entry) => entry.event === record.cls && entry.from === version);
      // init() refuses steps that go down or past the current version; the check keeps a loop impossible.
      if (!step || step.to <= version || step.to > current) throw new MissingUpcasterError(storedType, record.name, storedVersion, current, version);
      let result: unknown;
      try {
        result = this.instanceOf(step.cls).upcast(data, metadata);
      } catch (error) {
        throw new UpcasterFailedError(step.cls.name, storedType, version, step.to, error);
      }
      if (result === null || typeof result !== 'object' || Array.isArray(result)) {
        throw new InvalidUpcastResultError(step.cls.name, storedType, result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result);
      }
      data = result as Record<string, unknown>;
      version = step.to;
    }
    const { checksum: _coversTheStoredData, ...envelopeInfo } = metadata.envelope;
    return {
      data,
      metadata: {
        ...metadata,
        headers: { ...metadata.headers, type: this.registry.messageTypeOf(record.cls) },
        envelope: envelopeInfo as MessageMetadata['envelope'],
      },
    };
  }

  private instanceOf(cls: UpcasterClass): Upcaster {
    let instance = this.instances.get(cls);
    if (!instance) this.instances.set(cls, (instance = new cls()));
    return instance;
  }

  private eventsByFqn(): Map<string, EventRecord> {
    if (!this.byFqn || !this.registry.isFrozen) {
      this.byFqn = new Map(this.registry.recordsOf('event').map((record) => [this.registry.messageInfo(record.cls).fqn, record]));
    }
    return this.byFqn;
  }
}
