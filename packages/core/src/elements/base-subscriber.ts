/**
 * Reads raw messages from a broker stream that is not a domain event stream (integration with
 * systems outside the domain). The server calls `receive` once per message.
 */
export abstract class BaseSubscriber {
  abstract receive(payload: Record<string, unknown>): Promise<void> | void;
}
