// The consumer guarantees at a smoke size (40 events per key: 2,000 on Redis and NATS, 1,200 on
// RabbitMQ), still across three workers with one SIGKILLed and, on Redis and NATS, lost acks:
// scenarios/consumer-guarantees.ts says what is checked.
import { describeConsumerGuarantees, guaranteesBrokers } from './scenarios/consumer-guarantees.js';

for (const broker of guaranteesBrokers()) await describeConsumerGuarantees(broker, 'fast');
