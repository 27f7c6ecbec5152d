/** @protean-ts/redis: the Redis Streams broker. Importing it registers `provider = "redis"`. */
import { registerBroker } from '@protean-ts/core';
import { RedisBroker } from './redis-broker.js';

registerBroker('redis', (name, settings) => new RedisBroker(name, settings));

export { RedisBroker } from './redis-broker.js';
export { REDIS_DEFAULT_MAXLEN, REDIS_DEFAULT_MAXLEN_HARD, REDIS_DEFAULT_CONNECT_TIMEOUT_MS, REDIS_SETTING_KEYS } from './redis-broker-settings.js';
