/**
 * Builds the metadata of a message and attaches it. Used by `raise` for events and by the
 * runtime for commands; message instances are immutable, so stamping returns a copy.
 */
import type { MessageMetadata } from '../messages/envelope.js';
import { newMessageId } from '../messages/message-id.js';
import { captureTraceHeaders } from '../tracing/trace-headers.js';
import type { BaseMessage } from './base-message.js';
import type { MessageContext, MessageTypeInfo } from './element-host.js';
import { newState, STATE, stateOf } from './element-state.js';

export interface MetadataInput {
  info: MessageTypeInfo;
  /** Stream category the message travels on. */
  streamCategory: string;
  /** Full stream name (`<category>-<id>`, or `<category>:command-<id>` for commands). */
  stream: string;
  sequenceId?: string | null;
  expectedVersion?: number | null;
  context?: MessageContext;
}

export function buildMessageMetadata(input: MetadataInput): MessageMetadata {
  const trace = captureTraceHeaders();
  return {
    headers: {
      // Time-ordered, so indexes keyed by message id grow at one edge (see message-id.ts).
      id: newMessageId(),
      time: new Date().toISOString(),
      type: input.info.type,
      stream: input.stream,
      traceparent: trace ? trace.traceparent : (input.context?.traceparent ?? null),
      tracestate: trace ? trace.tracestate : (input.context?.tracestate ?? null),
    },
    envelope: { specversion: '1.0' },
    domain: {
      fqn: input.info.fqn,
      kind: input.info.kind,
      streamCategory: input.streamCategory,
      version: input.info.version,
      sequenceId: input.sequenceId ?? null,
      expectedVersion: input.expectedVersion ?? null,
      correlationId: input.context?.correlationId ?? null,
      causationId: input.context?.causationId ?? null,
      published: input.info.published,
    },
    extensions: {},
  };
}

/** A copy of `message` carrying `metadata` (the original is left as it was). */
export function withMetadata<M extends BaseMessage>(message: M, metadata: MessageMetadata): M {
  const copy = Object.create(Object.getPrototypeOf(message)) as M;
  const state = { ...newState(), values: stateOf(message).values, ready: true, metadata };
  (copy as unknown as Record<symbol, unknown>)[STATE] = state;
  return copy;
}
