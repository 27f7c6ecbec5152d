import { describe, expect, it } from 'vitest';
import { BrokerSettingsError } from '@protean-ts/core';
import { RedisBroker } from '../src/index.js';

const make = (settings: Record<string, unknown>) => new RedisBroker('events', { provider: 'redis', ...settings });

describe('redis broker settings', () => {
  it('uses documented defaults', async () => {
    const broker = make({ uri: 'redis://127.0.0.1:6379' });
    expect(broker.streamPrefix).toBe('');
    expect(broker.maxlen).toBe(100_000);
    expect(broker.maxlenHard).toBe(0);
    expect(broker.claimIdleMs).toBe(60_000);
    expect(broker.key('orders')).toBe('orders');
    await broker.close();
  });

  it('applies stream_prefix, maxlen and claim_idle_ms', async () => {
    const broker = make({ uri: 'rediss://cache.internal:6380', stream_prefix: 'tenant-a:', maxlen: 500, claim_idle_ms: 5_000 });
    expect(broker.key('orders')).toBe('tenant-a:orders');
    expect(broker.maxlen).toBe(500);
    expect(broker.claimIdleMs).toBe(5_000);
    await broker.close();
  });

  it('accepts maxlen_hard of 0 (no hard limit) or at least maxlen, and says why otherwise', async () => {
    const broker = make({ uri: 'redis://h', maxlen: 500, maxlen_hard: 2_000 });
    expect(broker.maxlenHard).toBe(2_000);
    await broker.close();
    expect(() => make({ uri: 'redis://h', maxlen: 500, maxlen_hard: 100 })).toThrow(
      /maxlen_hard: must be 0 \(no hard limit\) or at least maxlen \(500\), got 100/,
    );
    expect(() => make({ uri: 'redis://h', maxlen_hard: -1 })).toThrow(/maxlen_hard: must be an integer between 0 and 1000000000/);
    await make({ uri: 'redis://h', maxlen: 0, maxlen_hard: 10 }).close();
  });

  it('requires a uri and says what one looks like', () => {
    expect(() => make({})).toThrow(BrokerSettingsError);
    expect(() => make({})).toThrow(/\[brokers\.events\] uri: is required as a string, e\.g\. uri = "redis:\/\//);
  });

  it('rejects a URI of another scheme, masking its password', () => {
    const attempt = () => make({ uri: 'http://admin:hunter2@host:80' });
    expect(attempt).toThrow(/scheme "http" is not supported; use redis:\/\/ or rediss:\/\//);
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('rejects bad numbers and misspelt keys with a suggestion', () => {
    expect(() => make({ uri: 'redis://h', maxlen: -1 })).toThrow(/\[brokers\.events\] maxlen: must be an integer between 0 and 1000000000, got -1/);
    expect(() => make({ uri: 'redis://h', claim_idle_ms: '60s' })).toThrow(/claim_idle_ms: must be an integer/);
    expect(() => make({ uri: 'redis://h', max_len: 10 })).toThrow(/max_len: unknown setting for provider "redis"; did you mean "maxlen"\?/);
    expect(() => make({ uri: 'redis://h', stream_prefix: 7 })).toThrow(/stream_prefix: must be a string/);
  });
});
