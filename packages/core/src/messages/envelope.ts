/**
 * The wire shape of every event and command: `{ data, metadata }`. Brokers, the outbox and
 * (later) the event store move this shape verbatim; only `messages/` code builds or reads it.
 */
export type MessageKind = 'EVENT' | 'COMMAND';

export interface MessageHeaders {
  /** Unique message id (uuid). */
  id: string;
  /** ISO-8601 creation time. */
  time: string;
  /** `<Domain>.<Class>.v<N>`, e.g. `Shop.OrderPlaced.v1`. */
  type: string;
  /** Stream name `<category>-<aggregate id>` (commands: `<category>:command-<id>`). */
  stream: string;
  /**
   * W3C trace context of the span the message was created in (docs/observability.md), when an
   * OpenTelemetry SDK is registered; otherwise the handled message's, carried on unchanged.
   */
  traceparent?: string | null;
  /** W3C `tracestate` accompanying `traceparent`, when there is one. */
  tracestate?: string | null;
}

export interface EnvelopeInfo {
  specversion: '1.0';
  /** sha256 of the canonical JSON of `data` and `metadata` minus this checksum and `position`. Empty in stripped envelopes. */
  checksum?: string;
  /**
   * Where the message sits in its partition, assigned by the outbox when the row is written (so
   * it is not covered by the checksum): subscriptions handle a key's messages in this order.
   */
  position?: MessagePosition;
}

/** A message's place among the messages of one partition key (an aggregate's stream) on one broker. */
export interface MessagePosition {
  /** The partition key: the aggregate's stream (`shop::order-42`), or a command stream. */
  key: string;
  /** 1 for the key's first message on this broker, then +1 per message, without gaps. */
  sequence: number;
}

export interface DomainMeta {
  /** Fully qualified name, `<Domain>.<Class>`. */
  fqn: string;
  kind: MessageKind;
  streamCategory: string;
  version: number;
  /** Per-stream sequence, `<aggregate version>.<index within that commit>`, set on raise. */
  sequenceId?: string | null;
  /** The aggregate version the event was raised against; absent in stripped envelopes. */
  expectedVersion?: number | null;
  correlationId?: string | null;
  causationId?: string | null;
  /** True when this event is relayed to external brokers. */
  published?: boolean;
}

export interface MessageMetadata {
  headers: MessageHeaders;
  envelope: EnvelopeInfo;
  domain: DomainMeta;
  extensions: Record<string, unknown>;
}

export interface MessageEnvelope<D = Record<string, unknown>> {
  data: D;
  metadata: MessageMetadata;
}
