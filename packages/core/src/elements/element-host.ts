/**
 * What an element class needs from the Domain it is registered with (identity generation,
 * message types, stream categories, the active message context). The registry attaches itself
 * to each class it registers; elements/ only sees this interface, so it never imports domain/.
 */
import 'reflect-metadata';
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageKind } from '../messages/envelope.js';

export interface MessageTypeInfo {
  kind: MessageKind;
  /** `<Domain>.<Name>`. */
  fqn: string;
  /** `<Domain>.<Name>.v<N>`. */
  type: string;
  version: number;
  published: boolean;
  /** The aggregate the message belongs to, when declared. */
  partOf: ClassRef | undefined;
  /** The explicit stream category, or the partOf aggregate's; undefined when neither is known. */
  streamCategory: string | undefined;
}

/** Correlation data of the message being handled, provided by the runtime's unit of work. */
export interface MessageContext {
  correlationId: string | null;
  causationId: string | null;
  /** The handled message's W3C trace context, carried on when no OpenTelemetry SDK captures a newer one. */
  traceparent?: string | null;
  tracestate?: string | null;
}

export interface ElementHost {
  readonly domainName: string;
  newIdentity(): string;
  streamCategoryOf(aggregate: ClassRef): string;
  /** True for an aggregate registered with `eventSourced: true`. */
  isEventSourced(aggregate: ClassRef): boolean;
  messageInfo(message: ClassRef): MessageTypeInfo;
  messageContext(): MessageContext | undefined;
}

const HOST = Symbol('protean:host');

export function attachHost(cls: ClassRef, host: ElementHost): void {
  Reflect.defineMetadata(HOST, host, cls);
}

/** The host of `cls` itself; subclasses of a registered class are not registered by inheritance. */
export function hostOf(cls: ClassRef): ElementHost | undefined {
  return Reflect.getOwnMetadata(HOST, cls) as ElementHost | undefined;
}
