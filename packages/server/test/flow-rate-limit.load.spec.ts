/** The rate limit across workers at full size: 50/s over a minute with three workers, as issue 25 asks (see flow-rate-limit.scenarios.ts). */
import { describeRateLimit } from './flow-rate-limit.scenarios.js';

await describeRateLimit('load');
