// The fast tier's size of the rebuild at scale (5,000 events); the load tier runs 50,000.
import { describeRebuildAtScale } from './scenarios/projection-rebuild-at-scale.js';

await describeRebuildAtScale('fast');
