// The shop in production shape at full size: 5,000 orders on Redis, RabbitMQ and NATS in turn,
// each with a SIGKILLed worker (support/production-run.ts says what is checked; sizes and the
// variables that change them in support/production-run-size.ts). About 10-12 minutes a broker on
// two busy cores.
import { describeProductionRun } from './support/production-run.js';
import { productionRunBrokers, productionRunSize } from './support/production-run-size.js';

for (const broker of productionRunBrokers('load')) await describeProductionRun(broker, productionRunSize('load'));
