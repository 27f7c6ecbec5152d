/**
 * Thrown when the server starts with a `[server.flow_control."<name>"]` table naming no
 * subscription of the domain: a typo there would otherwise leave a handler without the circuit
 * breaker or limit meant for it, silently.
 */
export class UnknownFlowSubscriptionError extends Error {
  constructor(
    readonly names: readonly string[],
    readonly known: readonly string[],
  ) {
    super(
      `[server.flow_control] names ${names.map((n) => `"${n}"`).join(', ')}, which ${names.length === 1 ? 'is' : 'are'} no subscription of this domain; ` +
        `use a subscription name (a handler's subscriptionName, default its class name; a subscriber's class name): ${known.map((n) => `"${n}"`).join(', ') || 'none'}`,
    );
    this.name = 'UnknownFlowSubscriptionError';
  }
}
