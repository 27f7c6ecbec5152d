/** The failure-update properties at load size: a random seed (FC_SEED repeats one), ten times the fast runs (FC_RUNS). */
import { describeFailureUpdateProperties } from './failure-updates.properties.js';

describeFailureUpdateProperties('load');
