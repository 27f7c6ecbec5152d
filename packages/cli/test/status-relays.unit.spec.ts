/**
 * How `protean-ts status` words relay back-pressure (`outbox.max_consumer_lag`): one line per
 * broker under the outbox table, saying whether the relay holds back, by how much, and for which
 * group; nothing at all when back-pressure is off.
 */
import { describe, expect, it } from 'vitest';
import type { SystemStatus } from '@protean-ts/server/operations';
import { relayLine, renderStatus } from '../src/commands/status.js';

const base: SystemStatus = {
  takenAt: '2026-01-01T00:00:00.000Z',
  outboxes: [
    { database: 'default', label: 'postgresql', pending: 900, processing: 0, failed: 0, scheduled: 0, published: 10, abandoned: 0, oldestPendingAgeMs: 1_000 },
  ],
  subscriptions: [],
  processManagers: [],
};

describe('status: relay back-pressure', () => {
  it('says the relay is held back, by which group and how far past the bound', () => {
    const text = renderStatus({
      ...base,
      relays: [{ broker: 'default', maxConsumerLag: 1000, heldBack: true, worst: { stream: 'shop::order', group: 'Billing', behind: 1200 } }],
    });
    expect(text).toContain('  relay to default: held back: lag 1200 > max 1000 (group "Billing" of stream "shop::order"); rows wait in the outbox\n');
    expect(text.indexOf('relay to default')).toBeLessThan(text.indexOf('Subscriptions'));
  });

  it('says it relays when every group is within the bound, and why the lag is unknown when it is', () => {
    expect(relayLine({ broker: 'audit', maxConsumerLag: 50, heldBack: false, worst: { stream: 's', group: 'g', behind: 3 } })).toBe(
      'relay to audit: running: lag 3 <= max 50 (group "g" of stream "s")',
    );
    expect(relayLine({ broker: 'audit', maxConsumerLag: 50, heldBack: false, worst: null })).toBe(
      'relay to audit: running: lag 0 <= max 50 (no consumer group yet)',
    );
    expect(relayLine({ broker: 'audit', maxConsumerLag: 50, heldBack: false, worst: null, error: 'broker unreachable' })).toBe(
      'relay to audit: consumer lag unknown (max 50): broker unreachable',
    );
  });

  it('prints no relay line with back-pressure off', () => {
    expect(renderStatus(base)).not.toContain('relay to');
  });
});
