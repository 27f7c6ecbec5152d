/** The rate limit across workers on Redis, RabbitMQ and NATS JetStream, fast-tier size (see flow-rate-limit.scenarios.ts). */
import { describeRateLimit } from './flow-rate-limit.scenarios.js';

await describeRateLimit('fast');
