/** Malformed stream entries through a running subscription at load size: a random seed (FC_SEED repeats one), five times the fast runs (FC_RUNS). */
import { describeMalformedEntryProperties } from './malformed-entries.properties.js';

describeMalformedEntryProperties('load');
