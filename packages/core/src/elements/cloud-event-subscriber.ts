/**
 * Consuming another system's CloudEvents into the domain: a `@domain.subscriber` whose class
 * extends `CloudEventSubscriber` declares, per CloudEvents `type`, the domain event class its
 * `data` becomes (`@onCloudEvent(type, EventClass)` on a method). The broker (with
 * `message_format = "cloudevents"`) has already decoded structured or binary mode, dead-lettering
 * what is no CloudEvent; here the event's fields are validated as for any received message, so
 * bad data is a ValidationError, dead-lettered at once like an unknown type.
 */
import 'reflect-metadata';
import { BaseSubscriber } from './base-subscriber.js';
import { UnhandledCloudEventTypeError } from '../errors/unhandled-cloud-event-type.error.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import type { CloudEventAttributeValue } from '../messages/cloudevents/cloud-event.js';
import { CLOUD_EVENT_EXTENSION } from '../messages/cloudevents/envelope-to-cloud-event.js';

const CLOUD_EVENT_METHODS = Symbol('protean:cloud-event-methods');

/** What a handler method gets besides the event: the CloudEvent's context attributes. */
export interface CloudEventContext {
  id: string;
  type: string;
  source: string;
  time?: string;
  subject?: string;
  /** Every other attribute the event carried (extensions included), by its CloudEvents name. */
  attributes: Record<string, CloudEventAttributeValue>;
}

interface EventBuilder<E> {
  name: string;
  fromPlain(plain: Record<string, unknown>, options: { metadata: MessageEnvelope['metadata'] }): E;
}

interface CloudEventMark {
  type: string;
  event: EventBuilder<unknown>;
  method: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CloudEventMethod<E> = (event: E, context: CloudEventContext, ...rest: any[]) => unknown;

/** Marks a `CloudEventSubscriber` method as the handler of CloudEvents of `type`, decoded into `event`. */
export function onCloudEvent<E>(type: string, event: abstract new (...args: never[]) => E) {
  return <F extends CloudEventMethod<E>>(target: object, key: string | symbol, _descriptor: TypedPropertyDescriptor<F>): void => {
    refuseStandardDecorator(`@onCloudEvent('${type}')`, key);
    if (typeof key !== 'string') throw new TypeError(`@onCloudEvent methods must have string names, got ${String(key)}`);
    if (typeof type !== 'string' || type.trim() === '')
      throw new TypeError(`@onCloudEvent on ${target.constructor.name}.${key} needs the CloudEvents type it handles, got ${String(type)}`);
    if (typeof event !== 'function' || typeof (event as unknown as EventBuilder<E>).fromPlain !== 'function') {
      throw new TypeError(
        `@onCloudEvent('${type}') on ${target.constructor.name}.${key} needs an event class, got ${String(event)} (check for an import cycle)`,
      );
    }
    const own: CloudEventMark[] = Reflect.getOwnMetadata(CLOUD_EVENT_METHODS, target) ?? [];
    if (own.some((mark) => mark.type === type))
      throw new TypeError(`${target.constructor.name} declares CloudEvents type "${type}" twice; keep one @onCloudEvent('${type}', …)`);
    Reflect.defineMetadata(CLOUD_EVENT_METHODS, [...own, { type, event: event as unknown as EventBuilder<unknown>, method: key }], target);
  };
}

export abstract class CloudEventSubscriber extends BaseSubscriber {
  async receive(payload: Record<string, unknown>): Promise<void> {
    const envelope = payload as unknown as MessageEnvelope;
    const { type } = envelope.metadata.headers;
    const marks = cloudEventMarksOf(this.constructor);
    const mark = marks.find((m) => m.type === type);
    if (!mark)
      throw new UnhandledCloudEventTypeError(
        this.constructor.name,
        type,
        marks.map((m) => m.type),
      );
    const event = mark.event.fromPlain(structuredClone(envelope.data), { metadata: structuredClone(envelope.metadata) });
    const method = (this as unknown as Record<string, CloudEventMethod<unknown>>)[mark.method]!;
    await method.call(this, event, contextOf(envelope));
  }
}

/** The CloudEvents types `cls` declares, inherited first. */
export function cloudEventTypesOf(cls: object): string[] {
  return cloudEventMarksOf(cls).map((mark) => mark.type);
}

/** Per CloudEvents type `cls` declares: the event class its `data` becomes and the method that takes it (`protean-ts catalog` lists them). */
export function cloudEventHandlersOf(cls: object): { type: string; event: object; method: string }[] {
  return cloudEventMarksOf(cls).map(({ type, event, method }) => ({ type, event, method }));
}

function cloudEventMarksOf(cls: object): CloudEventMark[] {
  const chain: object[] = [];
  const proto = (cls as { prototype?: object }).prototype ?? null;
  for (let p: object | null = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) chain.unshift(p);
  return chain.flatMap((p) => (Reflect.getOwnMetadata(CLOUD_EVENT_METHODS, p) ?? []) as CloudEventMark[]);
}

function contextOf(envelope: MessageEnvelope): CloudEventContext {
  const { headers, extensions } = envelope.metadata;
  const attributes = { ...((extensions?.[CLOUD_EVENT_EXTENSION] ?? {}) as Record<string, CloudEventAttributeValue>) };
  const source = typeof attributes.source === 'string' ? attributes.source : '';
  return {
    id: headers.id,
    type: headers.type,
    source,
    ...(headers.time ? { time: headers.time } : {}),
    ...(typeof attributes.subject === 'string' ? { subject: attributes.subject } : {}),
    attributes,
  };
}
