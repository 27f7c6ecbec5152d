/** The cursor-tracker property at load size: a random seed (FC_SEED repeats one), 600 runs (FC_RUNS). */
import { describeCursorTrackerProperties } from './cursor-tracker.properties.js';

describeCursorTrackerProperties('load');
