/**
 * Thrown by a `CloudEventSubscriber` for a CloudEvent whose `type` none of its `@onCloudEvent`
 * methods declares. Permanent: redelivering it cannot help, so it goes to the dead letters.
 */
import { PermanentError } from './permanent-error.js';

export class UnhandledCloudEventTypeError extends PermanentError {
  constructor(
    readonly subscriber: string,
    readonly cloudEventType: string,
    readonly declared: readonly string[],
  ) {
    const list = declared.length ? declared.map((t) => `"${t}"`).join(', ') : 'none';
    super(
      `${subscriber} received a CloudEvent of type "${cloudEventType}", which none of its methods declares (declared: ${list}); ` +
        `add @onCloudEvent('${cloudEventType}', EventClass) to a method, or stop this type reaching its stream`,
    );
  }
}
