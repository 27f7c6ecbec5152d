/**
 * `describeBrokerConformance`: the behaviour every broker adapter must show, as a vitest suite.
 * Tests are chosen by the capabilities the adapter claims, so a new adapter runs exactly the
 * checks that apply to it: `describeBrokerConformance('redis', () => new RedisBroker(...), { capabilities })`.
 */
import { describe } from 'vitest';
import { consumerLagConformance } from './broker-conformance-consumer-lag.js';
import { consumersConformance } from './broker-conformance-consumers.js';
import { ConformanceContext, type BrokerConformanceOptions, type MakeBroker } from './broker-conformance-fixtures.js';
import { deliveryConformance } from './broker-conformance-delivery.js';
import { lifecycleConformance } from './broker-conformance-lifecycle.js';
import { livenessConformance } from './broker-conformance-liveness.js';
import { pendingConformance } from './broker-conformance-pending.js';
import { undecodableConformance } from './broker-conformance-undecodable.js';

export type { BrokerConformanceOptions, MakeBroker } from './broker-conformance-fixtures.js';

export function describeBrokerConformance(name: string, makeBroker: MakeBroker, options: BrokerConformanceOptions): void {
  const ctx = new ConformanceContext(makeBroker, options);
  describe(`broker conformance: ${name}`, () => {
    lifecycleConformance(ctx);
    deliveryConformance(ctx);
    pendingConformance(ctx);
    consumersConformance(ctx);
    livenessConformance(ctx);
    consumerLagConformance(ctx);
    undecodableConformance(ctx);
  });
}
