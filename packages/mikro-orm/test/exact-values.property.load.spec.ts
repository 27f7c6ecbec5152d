/** Generated values through PostgreSQL at load size: a random seed (FC_SEED repeats one), 1,500 runs (FC_RUNS). */
import { describeExactValueProperties } from './exact-values.properties.js';

describeExactValueProperties('load');
