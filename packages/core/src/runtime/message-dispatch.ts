/**
 * Delivered messages: `domain.handleMessage` runs a message's handlers (deserialized and checked,
 * each once through the subscription's inbox, in a fresh unit of work), and `runOnce` does the
 * same for a raw subscriber's work.
 */
import type { Span } from '@opentelemetry/api';
import type { MessageContext } from '../elements/element-host.js';
import { deserializeMessage } from '../messages/deserialize-message.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import type { InboxEntry, InboxStore, InboxVerdict } from '../ports/inbox-store.js';
import { TransactionStateError } from '../errors/transaction-state.error.js';
import { contextOf } from '../processing/handler-invocation.js';
import { handleMessage, runOnceInInbox, type BindingInvoker, type HandleMessageOptions, type HandleOutcome } from '../processing/message-handling.js';
import { inHandlerSpan } from '../tracing/handler-span.js';
import { SpanAttributes } from '../tracing/span-names.js';
import { invokeRecordingOutcome, recordsOutcome } from './command-outcome-recording.js';
import type { RuntimeContext } from './runtime-context.js';
import type { InboxPlace, RuntimeCommands, RuntimeMessages, RuntimeUnits } from './runtime-surface.js';

export class MessageDispatch implements RuntimeMessages {
  constructor(
    private readonly context: RuntimeContext,
    private readonly units: RuntimeUnits,
    private readonly commands: RuntimeCommands,
    private readonly invoke: BindingInvoker,
  ) {}

  /** Runs the handlers of a delivered message (what stream subscriptions call). */
  async handle(envelope: MessageEnvelope, options: HandleMessageOptions = {}): Promise<HandleOutcome> {
    const { context } = this;
    const config = context.require('handling a message');
    // Everything the framework publishes is signed; an unsigned envelope is refused unless accepted.
    const requireChecksum = !config.server.stream_subscription.accept_unsigned_envelopes;
    return handleMessage(
      {
        domainName: context.domainName,
        handlersFor: (type) => context.registry.handlersFor(type),
        deserialize: (e) => deserializeMessage(context.messageTypes, e, { requireChecksum }),
        freshUnitOfWork: (work, unitContext) => this.units.fresh(work, unitContext),
        ...(this.inbox ? { enterInbox: (entry: InboxEntry) => this.enterInbox(entry) } : {}),
        invoke: recordsOutcome(envelope)
          ? invokeRecordingOutcome(context, this.units, this.invoke, envelope, this.commands.database(envelope.metadata.headers.type))
          : this.invoke,
      },
      envelope,
      options,
    );
  }

  async runOnce(envelope: MessageEnvelope, inbox: InboxPlace, work: () => Promise<unknown>, handler?: { name: string; kind: string }): Promise<HandleOutcome> {
    this.context.require('handling a message');
    const metadata = envelope?.metadata?.domain ? envelope.metadata : undefined;
    const host = {
      freshUnitOfWork: (w: () => Promise<unknown>, context: Partial<MessageContext>) => this.units.fresh(w, context),
      ...(this.inbox ? { enterInbox: (entry: InboxEntry) => this.enterInbox(entry) } : {}),
    };
    const run = async (span?: Span) => {
      const outcome = await runOnceInInbox(host, envelope, inbox, contextOf(metadata), work);
      span?.setAttribute(SpanAttributes.handlerOutcome, outcome);
      return outcome;
    };
    if (!handler) return run();
    return inHandlerSpan(metadata, { ...handler, consumerGroup: inbox.subscription }, run);
  }

  get inbox(): InboxStore | null {
    const config = this.context.require('using the inbox');
    return config.inbox.enabled ? this.context.provider(config.inbox.database).inbox : null;
  }

  async enterInbox(entry: InboxEntry): Promise<InboxVerdict> {
    const uow = this.units.active();
    if (!uow) throw new TransactionStateError('The inbox can only be entered inside a unit of work');
    const database = this.context.require('using the inbox').inbox.database;
    return this.context.provider(database).inbox.enter(await uow.transactionFor(database), entry);
  }
}
