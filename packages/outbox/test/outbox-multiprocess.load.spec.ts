/** Several relay processes on one outbox, at full size: 4 relays, 20,000 messages over 500 keys (sizes: support/scenario-sizes.ts). */
import { describeMultiprocessRelays } from './scenarios/multiprocess-relays.js';
import { multiprocessSize } from './support/scenario-sizes.js';

describeMultiprocessRelays(multiprocessSize('load'));
