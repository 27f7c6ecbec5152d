/** CloudEvents 1.0: the broker-neutral mapping between envelopes and CloudEvents, and consuming them into the domain. */
export * from './cloud-event.js';
export * from './cloudevents-settings.js';
export { envelopeToCloudEvent, toBinaryCloudEvent, defaultSource, CLOUD_EVENT_EXTENSION, type BinaryCloudEvent } from './envelope-to-cloud-event.js';
export { structuredCloudEventToEnvelope, binaryCloudEventToEnvelope, type CloudEventDecoding } from './cloud-event-to-envelope.js';
export { CloudEventSubscriber, onCloudEvent, cloudEventTypesOf, cloudEventHandlersOf, type CloudEventContext } from './cloud-event-subscriber.js';
