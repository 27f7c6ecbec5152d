import { describe, expect, it } from 'vitest';
import { BrokerSettingsError } from '@protean-ts/core';
import { readNatsBrokerSettings } from '../src/nats-broker-settings.js';
import { fromNatsToken, natsToken, NatsNaming } from '../src/nats-names.js';

const read = (settings: Record<string, unknown>) => readNatsBrokerSettings('events', { provider: 'nats', uri: 'nats://127.0.0.1:4222', ...settings });

describe('nats broker settings', () => {
  it('has defaults for every key but uri', () => {
    expect(read({})).toMatchObject({
      servers: '127.0.0.1:4222',
      tls: false,
      streamPrefix: '',
      subjectPrefix: 'protean',
      ackWaitMs: 30_000,
      maxDeliver: 0,
      duplicateWindowMs: 120_000,
      maxMsgs: 0,
      maxAgeMs: 0,
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
    });
  });

  it('keeps ack_wait_ms at or below a shorter claim_idle_ms by default', () => {
    expect(read({ claim_idle_ms: 5_000 }).ackWaitMs).toBe(5_000);
    expect(read({ claim_idle_ms: 0 }).ackWaitMs).toBe(1_000);
  });

  it('reads credentials from the URI and masks them', () => {
    const settings = read({ uri: 'tls://app:s3cr%40t@nats.internal' });
    expect(settings).toMatchObject({ servers: 'nats.internal:4222', tls: true, user: 'app', pass: 's3cr@t', maskedUri: 'tls://app:***@nats.internal' });
    expect(settings.secrets).toContain('s3cr@t');
    expect(read({ uri: 'nats://tok3n@127.0.0.1:4222' })).toMatchObject({ token: 'tok3n' });
  });

  it('rejects typos, bad values and bad schemes with the key named', () => {
    expect(() => read({ max_deliveries: 3 })).toThrow(/did you mean "max_deliver"/);
    expect(() => read({ ack_wait_ms: 10 })).toThrow(BrokerSettingsError);
    expect(() => read({ max_deliver: -1 })).toThrow(/max_deliver/);
    expect(() => read({ stream_prefix: 'a.b' })).toThrow(/stream_prefix/);
    expect(() => read({ subject_prefix: 'events.>' })).toThrow(/subject_prefix/);
    expect(() => read({ uri: 'redis://127.0.0.1' })).toThrow(/scheme "redis"/);
    expect(() => readNatsBrokerSettings('events', { provider: 'nats' })).toThrow(/uri/);
  });
});

describe('nats names', () => {
  it('maps any protean name one-to-one onto JetStream-safe tokens', () => {
    for (const name of ['shop::order', 'a_b', 'a.b*>', 'café ☕', 'x_dlq']) {
      expect(natsToken(name)).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(fromNatsToken(natsToken(name))).toBe(name);
    }
    expect(natsToken('a_b')).not.toBe(natsToken('a.b'));
  });

  it("never lets a stream collide with another stream's dead letters", () => {
    const naming = new NatsNaming('p-', 'protean');
    expect(naming.stream('x').dlqStream).not.toBe(naming.stream('x_dlq').stream);
    expect(naming.stream('shop::order')).toEqual({
      stream: 'p-shop_3a_3aorder',
      subject: 'protean.p-shop_3a_3aorder',
      dlqStream: 'p-shop_3a_3aorder_dlq',
      dlqSubject: 'protean.p-shop_3a_3aorder_dlq',
    });
  });
});
