/** The circuit breaker on Redis, RabbitMQ and NATS JetStream, fast-tier size: a 3 s outage (see flow-circuit-breaker.scenarios.ts). */
import { describeCircuitBreaker } from './flow-circuit-breaker.scenarios.js';

await describeCircuitBreaker('fast');
