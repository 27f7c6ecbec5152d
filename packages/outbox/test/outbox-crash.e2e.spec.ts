/** A relay process SIGKILLed while it holds a batch, at a smoke size (sizes: support/scenario-sizes.ts). */
import { describeRelayCrash } from './scenarios/relay-crash.js';
import { crashSize } from './support/scenario-sizes.js';

describeRelayCrash(crashSize('fast'));
