/** The Redis entry codec properties at load size: a random seed (FC_SEED repeats one), ten times the fast runs (FC_RUNS). */
import { describeEntryCodecProperties } from './redis-entry-codec.properties.js';

describeEntryCodecProperties('load');
