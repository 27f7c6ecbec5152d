/**
 * Thrown when the server starts with a `[server.flow_control."<name>"]` table naming no
 * subscription of the domain: a typo there would otherwise leave a handler without the circuit
 * breaker or limit meant for it, silently.
 */
export class UnknownFlowSubscriptionError extends Error {
  constructor(
    readonly names: readonly string[],
    readonly known: readonly string[],
    /** Those of `names` that are event-store subscriptions, which have no flow control yet. */
    readonly eventStore: readonly string[] = [],
  ) {
    const quoted = (list: readonly string[]) => list.map((n) => `"${n}"`).join(', ');
    const typos = names.filter((name) => !eventStore.includes(name));
    const parts: string[] = [];
    if (typos.length > 0) {
      parts.push(
        `names ${quoted(typos)}, which ${typos.length === 1 ? 'is' : 'are'} no subscription of this domain; ` +
          `use a subscription name (a handler's subscriptionName, default its class name; a subscriber's class name): ${quoted(known) || 'none'}`,
      );
    }
    if (eventStore.length > 0) {
      parts.push(
        `names ${quoted(eventStore)}, ${eventStore.length === 1 ? 'an event-store subscription' : 'event-store subscriptions'}: ` +
          'flow control applies to stream and broker subscriptions only (event-store subscriptions do not have it yet); remove the table',
      );
    }
    super(`[server.flow_control] ${parts.join('; it also ')}`);
    this.name = 'UnknownFlowSubscriptionError';
  }
}
