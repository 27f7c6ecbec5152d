// The rebuild at scale at full size (50,000 events; REBUILD_ACCOUNTS × 100).
import { describeRebuildAtScale } from './scenarios/projection-rebuild-at-scale.js';

await describeRebuildAtScale('load');
