/** @protean-ts/redis: the Redis Streams broker. Importing it registers `provider = "redis"`. */
import { registerBroker } from '@protean-ts/core';
import { RedisBroker } from './redis-broker.js';
import { REDIS_BROKER_SETTINGS } from './redis-broker-settings.js';

registerBroker('redis', (name, settings) => new RedisBroker(name, settings), { settings: REDIS_BROKER_SETTINGS });

export { RedisBroker } from './redis-broker.js';
export {
  REDIS_DEFAULT_MAXLEN,
  REDIS_DEFAULT_MAXLEN_HARD,
  REDIS_DEFAULT_CONNECT_TIMEOUT_MS,
  REDIS_SETTING_KEYS,
  REDIS_BROKER_SETTINGS,
} from './redis-broker-settings.js';
