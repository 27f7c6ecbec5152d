/** Priority lanes on Redis, RabbitMQ and NATS JetStream at full size: a 20,000-event backfill, as issue 25 asks (see flow-lanes.scenarios.ts). */
import { describeLaneScenarios } from './flow-lanes.scenarios.js';

describeLaneScenarios('load');
