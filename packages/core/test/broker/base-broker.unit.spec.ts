import { describe, expect, it } from 'vitest';
import { BaseBroker } from '../../src/ports/base-broker.js';
import { BrokerBatchError } from '../../src/ports/broker-batch.error.js';
import { BrokerCapabilityError } from '../../src/ports/broker-capability.error.js';
import { BrokerOperationError } from '../../src/ports/broker-operation.error.js';
import { BrokerSettingsError } from '../../src/config/broker-settings.error.js';
import { BrokerUnavailableError } from '../../src/ports/broker-unavailable.error.js';
import { BrokerCapability, type OutgoingMessage } from '../../src/ports/broker.js';
import { sampleBrokerEnvelope } from '@protean-ts/conformance';

/** A publish-only adapter whose behaviour each test scripts, to observe what the base adds. */
class ScriptedBroker extends BaseBroker {
  readonly provider = 'scripted';
  readonly capabilities = BrokerCapability.PUBLISH;
  connects = 0;
  published: string[] = [];
  failConnect: Error | null = null;
  failPublish: Error | null = null;

  protected async doConnect() {
    this.connects += 1;
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (this.failConnect) throw this.failConnect;
  }
  protected async doPublish(message: OutgoingMessage) {
    if (this.failPublish) throw this.failPublish;
    this.published.push(message.stream);
    return `${this.published.length}-0`;
  }
  protected async doPing() {
    return true;
  }
  protected async doInfo() {
    return {};
  }
  protected async doClose() {}
  protected override describeTarget() {
    return 'scripted://user:***@host';
  }
  protected override redact(text: string) {
    return text.replaceAll('hunter2', '***');
  }
  protected override isConnectionError(error: unknown) {
    return error instanceof Error && error.message.startsWith('socket');
  }
}

const message = (stream = 'orders') => ({ stream, envelope: sampleBrokerEnvelope(stream) });

describe('BaseBroker', () => {
  it('connects once for concurrent first calls', async () => {
    const broker = new ScriptedBroker('b', { provider: 'scripted' });
    await Promise.all([broker.publish(message()), broker.publish(message()), broker.connect()]);
    expect(broker.connects).toBe(1);
    expect(broker.state).toBe('connected');
  });

  it('turns a connection failure into BrokerUnavailableError naming broker and target, secrets redacted, and retries later', async () => {
    const broker = new ScriptedBroker('events', { provider: 'scripted' });
    broker.failConnect = new Error('socket refused for password hunter2');
    const error = await broker.publish(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerUnavailableError);
    expect((error as Error).message).toBe('Broker "events" is unreachable: cannot connect on scripted://user:***@host: socket refused for password ***');
    expect((error as BrokerUnavailableError).cause).toBe(broker.failConnect);
    broker.failConnect = null;
    expect(await broker.publish(message())).toBe('1-0');
    expect(broker.connects).toBe(2);
  });

  it('reports a message-level failure as BrokerOperationError, not as an outage', async () => {
    const broker = new ScriptedBroker('events', { provider: 'scripted' });
    broker.failPublish = new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
    const error = await broker.publish(message('orders')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerOperationError);
    expect(error).not.toBeInstanceOf(BrokerUnavailableError);
    expect((error as Error).message).toBe(
      'Broker "events" failed to publish to stream "orders": WRONGTYPE Operation against a key holding the wrong kind of value',
    );
  });

  it('passes its own errors through untranslated', async () => {
    const broker = new ScriptedBroker('events', { provider: 'scripted' });
    const batchError = new BrokerBatchError('events', [
      { ok: true, id: '1-0' },
      { ok: false, error: new Error('too big') },
    ]);
    broker.failPublish = batchError;
    await expect(broker.publish(message())).rejects.toBe(batchError);
    expect(batchError.ids).toEqual(['1-0', null]);
    expect(batchError.message).toBe('Broker "events" refused 1 of 2 messages in a batch; first error: too big');
  });

  it('publishes a batch one by one for adapters without a batch command, in order', async () => {
    const broker = new ScriptedBroker('b', { provider: 'scripted' });
    expect(await broker.publishBatch([message('a'), message('b'), message('c')])).toEqual(['1-0', '2-0', '3-0']);
    expect(broker.published).toEqual(['a', 'b', 'c']);
  });

  it('refuses what the adapter lacks with BrokerCapabilityError, before any I/O', async () => {
    const broker = new ScriptedBroker('events', { provider: 'scripted' });
    await expect(broker.read('s', 'g', 'c', { count: 1, blockMs: 0 })).rejects.toThrow(BrokerCapabilityError);
    await expect(broker.reclaim('s', 'g', 'c', 0, 1)).rejects.toThrow(
      `Broker "events" (provider "scripted") lacks RECLAIM_PENDING, needed by reclaim(); check broker.has('RECLAIM_PENDING') first`,
    );
    await expect(broker.purgeDeadLetters('s')).rejects.toThrow(BrokerCapabilityError);
    expect(broker.connects).toBe(0);
  });

  it('reads claim_idle_ms for every adapter and rejects a bad one', () => {
    expect(new ScriptedBroker('b', { provider: 'scripted' }).claimIdleMs).toBe(60_000);
    expect(new ScriptedBroker('b', { provider: 'scripted', claim_idle_ms: 250 }).claimIdleMs).toBe(250);
    expect(() => new ScriptedBroker('b', { provider: 'scripted', claim_idle_ms: -1 })).toThrow(BrokerSettingsError);
  });
});
