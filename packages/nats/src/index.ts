/** @protean-ts/nats: the NATS JetStream broker. Importing it registers `provider = "nats"`. */
import { registerBroker } from '@protean-ts/core';
import { NatsBroker } from './nats-broker.js';
import { NATS_BROKER_SETTINGS } from './nats-broker-settings.js';

registerBroker('nats', (name, settings) => new NatsBroker(name, settings), { settings: NATS_BROKER_SETTINGS });

export { NatsBroker } from './nats-broker.js';
export {
  NATS_BROKER_SETTINGS,
  NATS_SETTING_KEYS,
  NATS_DEFAULT_ACK_WAIT_MS,
  NATS_DEFAULT_DUPLICATE_WINDOW_MS,
  NATS_DEFAULT_CONNECT_TIMEOUT_MS,
  NATS_DEFAULT_REQUEST_TIMEOUT_MS,
  NATS_DEFAULT_SUBJECT_PREFIX,
} from './nats-broker-settings.js';
export { natsToken, fromNatsToken, type NatsStreamNames } from './nats-names.js';
