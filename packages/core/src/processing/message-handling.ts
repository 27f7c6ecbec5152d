/**
 * `domain.handleMessage(envelope)`: what stream subscriptions call for each delivered message.
 * It deserializes the envelope (checksum checked) and runs the registered handlers of its type,
 * each in its own unit of work; `handler` limits the run to one handler class (one subscription).
 * With `inbox`, the subscription's inbox is consulted first in that unit of work: the handler
 * runs only when the message is its key's next (or a late one), and the record of it commits
 * with the handler's effects.
 */
import type { HandlerBinding } from '../registry/registry.js';
import type { MessageContext } from '../elements/element-host.js';
import { HandlerNotFoundError } from '../errors/handler-not-found.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import { positionOf } from '../messages/with-position.js';
import type { InboxEntry, InboxVerdict } from '../ports/inbox-store.js';
import { contextOf, invokeHandler } from './handler-invocation.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { inHandlerSpan } from '../tracing/handler-span.js';
import { SpanAttributes } from '../tracing/span-names.js';

export interface HandleMessageOptions {
  /** Run only this handler class (the subscription's); other handlers of the type are left alone. */
  handler?: ClassRef;
  /** Consult and update this subscription's inbox in the handler's unit of work (needs `handler`). */
  inbox?: { subscription: string; brokerMessageId: string; jumpGap?: boolean; redelivered?: boolean };
}

/**
 * - `handled`: the handler ran and committed.
 * - `skipped`: no handler here handles this message (the subscription acks it without work).
 * With an inbox, also:
 * - `handled-late`: it ran, out of order: its position had been passed (gap timeout, replay).
 * - `duplicate`: handled before (a redelivery); nothing ran.
 * - `early`: a predecessor of its key has not been handled yet; nothing ran, try again later.
 * - `dead-lettered-before`: this delivery was dead-lettered already; nothing ran.
 */
export type HandleOutcome = 'handled' | 'skipped' | 'handled-late' | 'duplicate' | 'early' | 'dead-lettered-before';

export interface MessageHandlingHost {
  readonly domainName: string;
  handlersFor(type: string): readonly HandlerBinding[];
  deserialize(envelope: MessageEnvelope): unknown;
  freshUnitOfWork(work: () => Promise<unknown>, context: Partial<MessageContext>): Promise<unknown>;
  /** Runs the inbox check in the active unit of work; absent when the inbox is off. */
  enterInbox?: (entry: InboxEntry) => Promise<InboxVerdict>;
  /** Calls one handler method (process managers load and store their state around it); default invokeHandler. */
  invoke?: BindingInvoker;
}

/** Runs `method` of `binding` for `message` inside the active unit of work. */
export type BindingInvoker = (binding: HandlerBinding, method: string, message: unknown) => Promise<unknown>;

export const invokeBinding: BindingInvoker = (binding, method, message) => invokeHandler(binding.cls, method, message);

export async function handleMessage(host: MessageHandlingHost, envelope: MessageEnvelope, options: HandleMessageOptions = {}): Promise<HandleOutcome> {
  const message = host.deserialize(envelope);
  const { kind } = envelope.metadata.domain;
  // The deserialized message's type: an upcast older version is handled as the current one.
  const type = (message as { _metadata?: MessageEnvelope['metadata'] })._metadata?.headers.type ?? envelope.metadata.headers.type;
  // Process managers react to events like event handlers do.
  const wanted: readonly string[] = kind === 'COMMAND' ? ['commandHandler'] : ['eventHandler', 'processManager'];
  let bindings = host.handlersFor(type).filter((b) => wanted.includes(b.record.kind));
  if (kind === 'COMMAND' && bindings.length === 0 && !options.handler) throw new HandlerNotFoundError(type, host.domainName);
  if (options.handler) bindings = bindings.filter((b) => b.cls === options.handler);
  if (bindings.length === 0) return 'skipped';

  const context = contextOf(envelope.metadata);
  const invoke = host.invoke ?? invokeBinding;
  const traced = (binding: HandlerBinding) => ({ name: binding.cls.name, kind: binding.record.kind, consumerGroup: options.inbox?.subscription });
  if (options.inbox && host.enterInbox && bindings.length === 1) {
    const binding = bindings[0]!;
    const methods = kind === 'COMMAND' ? binding.methods.slice(0, 1) : binding.methods;
    const inbox = options.inbox;
    return inHandlerSpan(envelope.metadata, traced(binding), async (span) => {
      const outcome = await handleOnce(host, invoke, binding, methods, message, envelope, inbox, context);
      span?.setAttribute(SpanAttributes.handlerOutcome, outcome);
      return outcome;
    });
  }
  const failures: unknown[] = [];
  for (const binding of bindings) {
    for (const method of kind === 'COMMAND' ? binding.methods.slice(0, 1) : binding.methods) {
      try {
        await inHandlerSpan(envelope.metadata, traced(binding), () =>
          retryOnConflict(() => host.freshUnitOfWork(() => invoke(binding, method, message), context)),
        );
      } catch (error) {
        if (bindings.length === 1 && binding.methods.length === 1) throw error;
        failures.push(error);
      }
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} handlers of ${type} failed`);
  return 'handled';
}

/**
 * One handler class, all its methods for the type in one unit of work together with the inbox
 * record, so the message counts as handled exactly when its effects commit.
 */
function handleOnce(
  host: MessageHandlingHost,
  invoke: BindingInvoker,
  binding: HandlerBinding,
  methods: readonly string[],
  message: unknown,
  envelope: MessageEnvelope,
  inbox: NonNullable<HandleMessageOptions['inbox']>,
  context: Partial<MessageContext>,
): Promise<HandleOutcome> {
  return runOnceInInbox(host, envelope, inbox, context, async () => {
    for (const method of methods) await invoke(binding, method, message);
  });
}

/**
 * Runs `work` in a fresh unit of work after entering the inbox in it: only when the message is
 * its key's next (or late), so the inbox record and the work's effects commit together. A lost
 * version race runs the whole unit again.
 */
export async function runOnceInInbox(
  host: Pick<MessageHandlingHost, 'freshUnitOfWork' | 'enterInbox'>,
  envelope: MessageEnvelope,
  inbox: NonNullable<HandleMessageOptions['inbox']>,
  context: Partial<MessageContext>,
  work: () => Promise<unknown>,
): Promise<HandleOutcome> {
  const enter = host.enterInbox;
  if (!enter) {
    await retryOnConflict(() => host.freshUnitOfWork(work, context));
    return 'handled';
  }
  let verdict: InboxVerdict = { kind: 'next' };
  const entry: InboxEntry = { ...inbox, position: positionOf(envelope), messageId: envelope.metadata.headers.id };
  await retryOnConflict(() =>
    host.freshUnitOfWork(async () => {
      verdict = await enter(entry);
      if (verdict.kind === 'next' || verdict.kind === 'late') await work();
    }, context),
  );
  return VERDICT_OUTCOMES[(verdict as InboxVerdict).kind];
}

const VERDICT_OUTCOMES: Record<InboxVerdict['kind'], HandleOutcome> = {
  next: 'handled',
  late: 'handled-late',
  duplicate: 'duplicate',
  early: 'early',
  'dead-lettered': 'dead-lettered-before',
};
