/** The field-value property at load size: a random seed (FC_SEED repeats one), 5,000 runs per field (FC_RUNS). */
import { describeFieldValueProperties } from './field-values.properties.js';

describeFieldValueProperties('load');
