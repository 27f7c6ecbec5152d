/** Priority lanes on Redis, RabbitMQ and NATS JetStream at fast-tier size: a 1,000-event backfill (see flow-lanes.scenarios.ts). */
import { describeLaneScenarios } from './flow-lanes.scenarios.js';

describeLaneScenarios('fast');
