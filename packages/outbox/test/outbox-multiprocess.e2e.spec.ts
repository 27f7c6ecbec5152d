/** Several relay processes on one outbox, at a smoke size (sizes: support/scenario-sizes.ts). */
import { describeMultiprocessRelays } from './scenarios/multiprocess-relays.js';
import { multiprocessSize } from './support/scenario-sizes.js';

describeMultiprocessRelays(multiprocessSize('fast'));
