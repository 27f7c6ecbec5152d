/** @protean-ts/rabbitmq: the RabbitMQ broker. Importing it registers `provider = "rabbitmq"`. */
import { registerBroker } from '@protean-ts/core';
import { RabbitMQBroker } from './rabbitmq-broker.js';
import { RABBITMQ_BROKER_SETTINGS } from './rabbitmq-broker-settings.js';

registerBroker('rabbitmq', (name, settings) => new RabbitMQBroker(name, settings), { settings: RABBITMQ_BROKER_SETTINGS });

export { RabbitMQBroker } from './rabbitmq-broker.js';
export { UnroutableMessageError } from './rabbitmq-publisher.js';
export { RabbitMQManagementError } from './rabbitmq-management.error.js';
export { RabbitMQManagementRequiredError } from './rabbitmq-management-required.error.js';
export {
  RABBITMQ_BROKER_SETTINGS,
  RABBITMQ_SETTING_KEYS,
  RABBITMQ_DEFAULT_MAXLEN,
  RABBITMQ_DEFAULT_DELIVERY_LIMIT,
  RABBITMQ_DEFAULT_CONNECT_TIMEOUT_MS,
  RABBITMQ_DEFAULT_MANAGEMENT_STATS_INTERVAL_MS,
} from './rabbitmq-broker-settings.js';
