/** The malformed-envelope properties at load size: a random seed (FC_SEED repeats one), 20,000 runs each (FC_RUNS). */
import { describeMalformedEnvelopeProperties } from './malformed-envelopes.properties.js';

describeMalformedEnvelopeProperties('load');
