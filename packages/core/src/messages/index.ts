/** Message envelopes: canonical JSON, checksums, (de)serialization and stripping for external brokers. */
export type * from './envelope.js';
export { canonicalJson } from './canonical-json.js';
export { envelopeChecksum } from './envelope-checksum.js';
export { serializeMessage, type SerializableMessage } from './serialize-message.js';
export { checkEnvelope, type CheckEnvelopeOptions } from './check-envelope.js';
export { MAX_MESSAGE_NESTING, nestsDeeperThan } from './message-nesting.js';
export { brokerEnvelopeProblem } from './broker-envelope-problem.js';
export { deserializeMessage, type MessageTypeLookup, type DeserializeOptions } from './deserialize-message.js';
export { stripEnvelope } from './strip-envelope.js';
export { storableText } from './storable-text.js';
export { newMessageId } from './message-id.js';
export { withPosition, positionOf, MAX_POSITION_KEY_LENGTH } from './with-position.js';
export { POSITION_PASSED_TYPE, positionPassedEnvelope, passedRowOf, checkPositionPassed, type PassedRow } from './position-passed.js';
