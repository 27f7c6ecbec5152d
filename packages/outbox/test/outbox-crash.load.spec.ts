/** A relay process SIGKILLed while it holds a batch, at full size: 6,000 rows over 300 keys (sizes: support/scenario-sizes.ts). */
import { describeRelayCrash } from './scenarios/relay-crash.js';
import { crashSize } from './support/scenario-sizes.js';

describeRelayCrash(crashSize('load'));
