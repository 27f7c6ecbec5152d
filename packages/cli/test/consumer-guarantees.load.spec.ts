// The consumer guarantees at full size: 20,000 events on Redis and 10,000 on NATS JetStream
// (scenarios/consumer-guarantees.ts says what is checked and how to resize it).
import { describeConsumerGuarantees, guaranteesBrokers } from './scenarios/consumer-guarantees.js';

for (const broker of guaranteesBrokers()) await describeConsumerGuarantees(broker, 'load');
