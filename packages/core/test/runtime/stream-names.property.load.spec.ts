/** The stream-name properties at load size: a random seed (FC_SEED repeats one), ten times the fast runs (FC_RUNS). */
import { describeStreamNameProperties } from './stream-names.properties.js';

describeStreamNameProperties('load');
