/** The broken-configuration property at load size: a random seed (FC_SEED repeats one), 10,000 runs (FC_RUNS). */
import { describeBrokenConfigProperties } from './broken-configs.properties.js';

describeBrokenConfigProperties('load');
