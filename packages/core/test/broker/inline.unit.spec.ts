import { InlineBroker } from '../../src/adapters/inline/inline-broker.js';
import { describeBrokerConformance } from '@protean-ts/conformance';

describeBrokerConformance('inline', () => new InlineBroker('conformance'), {
  capabilities: ['PUBLISH', 'CONSUMER_GROUPS', 'ACK_NACK', 'BLOCKING_READ', 'DEAD_LETTER_QUEUE', 'RECLAIM_PENDING', 'LIVENESS'],
});
