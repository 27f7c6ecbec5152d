// The consumer guarantees at a smoke size (2,000 events of 50 keys per broker, still across three
// workers with one SIGKILLed and lost acks): scenarios/consumer-guarantees.ts says what is checked.
import { describeConsumerGuarantees, guaranteesBrokers } from './scenarios/consumer-guarantees.js';

for (const broker of guaranteesBrokers()) await describeConsumerGuarantees(broker, 'fast');
