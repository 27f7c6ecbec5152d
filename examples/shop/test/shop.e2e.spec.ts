// The shop in production shape at a smoke size: 300 orders on Redis with a SIGKILLed worker
// (support/production-run.ts says what is checked; SHOP_ORDERS, SHOP_BROKERS... resize it).
import { describeProductionRun } from './support/production-run.js';
import { productionRunBrokers, productionRunSize } from './support/production-run-size.js';

for (const broker of productionRunBrokers('fast')) await describeProductionRun(broker, productionRunSize('fast'));
