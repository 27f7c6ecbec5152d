import { describe, expect, it } from 'vitest';
import { InlineBroker } from '../../src/adapters/inline/inline-broker.js';
import { brokerFactory } from '../../src/adapters/registry.js';
import '../../src/adapters/inline/index.js';
import { BrokerOperationError } from '../../src/ports/broker-operation.error.js';
import { BrokerSettingsError } from '../../src/config/broker-settings.error.js';
import { sampleBrokerEnvelope } from '@protean-ts/conformance';

const NOW = { count: 1000, blockMs: 0 };
const msg = (stream: string, i = 0) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) });

describe('inline broker', () => {
  it('is registered as provider "inline"', async () => {
    const factory = await brokerFactory('default', { provider: 'inline' });
    const broker = factory('default', { provider: 'inline' });
    expect(broker).toBeInstanceOf(InlineBroker);
    expect(broker.name).toBe('default');
  });

  it('keeps the newest maxlen entries; a group behind the trimmed ones skips to the oldest kept', async () => {
    const broker = new InlineBroker('b', { provider: 'inline', maxlen: 3 });
    await broker.ensureGroup('s', 'g');
    const ids = await broker.publishBatch([0, 1, 2, 3, 4].map((i) => msg('s', i)));
    expect((await broker.read('s', 'g', 'c', NOW)).map((m) => m.id)).toEqual(ids.slice(2));
  });

  it('answers groupProgress without entry ids: settled only once nothing is undelivered or unacked', async () => {
    const broker = new InlineBroker('b', { provider: 'inline' });
    await broker.ensureGroup('s', 'g');
    await broker.publishBatch([0, 1].map((i) => msg('s', i)));
    expect(await broker.groupProgress('s', 'g')).toEqual({ exists: true, head: null, consumers: null, settled: false });
    const read = await broker.read('s', 'g', 'c', NOW);
    expect((await broker.groupProgress('s', 'g')).settled).toBe(false);
    await broker.ack(
      's',
      'g',
      read.map((m) => m.id),
    );
    expect((await broker.groupProgress('s', 'g')).settled).toBe(true);
    await expect(broker.groupProgress('s', '')).rejects.toThrow(/group/);
  });

  it('does not count entries trimmed before delivery as lag', async () => {
    const broker = new InlineBroker('b', { provider: 'inline', maxlen: 3 });
    await broker.ensureGroup('s', 'g');
    await broker.publishBatch([0, 1, 2, 3, 4].map((i) => msg('s', i)));
    expect(await broker.groupStatus('s', 'g')).toEqual({ pending: 0, lag: 3, exists: true });
  });

  it('drops pending entries trimmed away before anyone reclaimed them', async () => {
    const broker = new InlineBroker('b', { provider: 'inline', maxlen: 2 });
    await broker.publishBatch([msg('s', 0), msg('s', 1)]);
    const [first] = await broker.read('s', 'g', 'c', { count: 1, blockMs: 0 });
    await broker.publishBatch([msg('s', 2), msg('s', 3)]);
    const reclaimed = await broker.reclaim('s', 'g', 'c2', 0, 10);
    expect(reclaimed.map((m) => m.id)).not.toContain(first!.id);
  });

  it('publishes nothing from a batch holding an envelope JSON cannot carry', async () => {
    const broker = new InlineBroker('b');
    const bad = msg('s', 1);
    (bad.envelope.data as Record<string, unknown>).amount = 10n;
    await expect(broker.publishBatch([msg('s', 0), bad])).rejects.toThrow(BrokerOperationError);
    expect(await broker.read('s', 'g', 'c', NOW)).toEqual([]);
  });

  it('rejects unknown settings with a suggestion', () => {
    expect(() => new InlineBroker('b', { provider: 'inline', max_len: 5 })).toThrow(BrokerSettingsError);
    expect(() => new InlineBroker('b', { provider: 'inline', max_len: 5 })).toThrow(/did you mean "maxlen"/);
  });

  it('describes its streams, groups and dead letters in info()', async () => {
    const broker = new InlineBroker('b');
    await broker.publishBatch([msg('s', 0), msg('s', 1)]);
    const [m] = await broker.read('s', 'g', 'c', { count: 1, blockMs: 0 });
    await broker.deadLetter('s', 'g', m!, 'x');
    const info = await broker.info();
    expect(info).toMatchObject({ provider: 'inline', name: 'b', connected: true });
    expect(info.details.streams).toEqual({ s: { length: 2, groups: { g: { pending: 0, lag: 1 } }, deadLetters: 1 } });
  });
});
