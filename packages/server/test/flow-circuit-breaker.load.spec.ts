/** The circuit breaker at full size: a dependency down for 30 s, as issue 25 asks (see flow-circuit-breaker.scenarios.ts). */
import { describeCircuitBreaker } from './flow-circuit-breaker.scenarios.js';

await describeCircuitBreaker('load');
