// The consumer guarantees at full size: 20,000 events on Redis, 10,000 on NATS JetStream and 6,000
// on RabbitMQ (scenarios/consumer-guarantees.ts says what is checked, consumer-guarantees-size.ts
// how to resize it).
import { describeConsumerGuarantees, guaranteesBrokers } from './scenarios/consumer-guarantees.js';

for (const broker of guaranteesBrokers()) await describeConsumerGuarantees(broker, 'load');
