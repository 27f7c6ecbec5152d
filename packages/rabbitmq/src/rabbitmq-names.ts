/**
 * How the broker's streams and groups map onto RabbitMQ objects, in one place. Every name starts
 * with `name_prefix`, so tenants, environments or test files sharing one RabbitMQ never meet.
 */
export class RabbitMQNames {
  constructor(readonly prefix: string) {}

  /** Durable fanout exchange the stream's messages are published to. */
  exchange(stream: string): string {
    return `${this.prefix}${stream}`;
  }

  /** Durable quorum queue of one consumer group, bound to the stream's exchange. */
  groupQueue(stream: string, group: string): string {
    return `${this.prefix}${stream}@${group}`;
  }

  /** Where a stream's messages wait while it has no group yet (via the alternate exchange). */
  holdingQueue(stream: string): string {
    return `${this.prefix}${stream}:unclaimed`;
  }

  /** The stream's dead-letter queue (classic, so listing it never counts as a delivery). */
  deadLetterQueue(stream: string): string {
    return `${this.prefix}${stream}:dlq`;
  }

  /** Direct exchange every stream exchange names as its alternate: routes by stream name to the holding queue. */
  get unroutedExchange(): string {
    return `${this.prefix}protean.unrouted`;
  }
}
