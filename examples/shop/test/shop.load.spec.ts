// The shop in production shape at full size: 5,000 orders on Redis, RabbitMQ and NATS in turn,
// each with a SIGKILLed worker (support/production-run.ts says what is checked).
import { describeProductionRun } from './support/production-run.js';
import { productionRunBrokers, productionRunSize } from './support/production-run-size.js';

for (const broker of productionRunBrokers('load')) await describeProductionRun(broker, productionRunSize('load'));
