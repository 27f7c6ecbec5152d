/**
 * What a subscription does with messages it must not handle, on the memory database and the
 * inline broker: an envelope without its checksum and an unsigned position marker are
 * dead-lettered with the reason (unless `accept_unsigned_envelopes`), and a message that cannot
 * even be dead-lettered ends anyway, acked with an ERROR past the poison-pill bound.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InlineBroker,
  positionOf,
  positionPassedEnvelope,
  registerBroker,
  stripEnvelope,
  ValidationError,
  type BrokerSettings,
  type ReceivedMessage,
} from '@protean-ts/core';
import { Engine } from '../src/engine/engine.js';
import { makeCounterDomain } from './support/counter-fixture.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';

/** An inline broker whose dead-letter stream refuses every letter (a broken DLQ). */
class DeadLetterRefusingBroker extends InlineBroker {
  override async deadLetter(_stream: string, _group: string, message: ReceivedMessage): Promise<void> {
    throw new Error(`the dead-letter stream refuses ${message.id} (test)`);
  }
}
registerBroker('dlq-refusing-inline', (name: string, settings: BrokerSettings) => new DeadLetterRefusingBroker(name, settings));

const config = (subscription: Record<string, unknown> = {}, broker: Record<string, unknown> = {}) => ({
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline', ...broker } },
  event_processing: 'async',
  server: {
    health: { port: 0 },
    stream_subscription: { blocking_timeout_ms: 50, max_retries: 1, retry_delay_seconds: 0.01, enable_dlq: true, gap_timeout_seconds: 30, ...subscription },
  },
});

describe('malformed messages in a subscription (memory database, inline broker)', () => {
  let engine: Engine | null = null;
  let logs: ReturnType<typeof captureLogs>;
  let counter: ReturnType<typeof makeCounterDomain>;
  let seq = 0;

  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    logs.restore();
  });

  async function start(subscription: Record<string, unknown> = {}, broker: Record<string, unknown> = {}, reclaimIntervalMs?: number): Promise<void> {
    seq += 1;
    counter = makeCounterDomain(`Malformed${seq}`, config(subscription, broker));
    engine = new Engine(counter.domain, { health: false, ...(reclaimIntervalMs ? { reclaimIntervalMs } : {}) });
    await engine.start();
  }
  const broker = () => counter.domain.brokers.get('default')!;
  const publish = (...envelopes: ReturnType<typeof counter.ticked>[]) =>
    broker().publishBatch(envelopes.map((envelope) => ({ stream: counter.stream, envelope })));
  const tally = () => engine!.subscriptionStatuses().find((s) => s.name === 'Tally')!;
  const drained = async () => (await broker().groupStatus(counter.stream, 'Tally')).pending === 0 && tally().inFlight === 0;

  it('regression: a message whose checksum was removed is dead-lettered with MissingChecksumError, not handled; its key moves on', async () => {
    await start();
    const unsigned = stripEnvelope(counter.ticked('a', 1));
    await publish(unsigned, counter.ticked('a', 2));
    await eventually(async () => (await drained()) && counter.probe.seen.get('a')?.length === 1);
    expect(counter.probe.seen.get('a')).toEqual([2]);
    expect(tally()).toMatchObject({ deadLettered: 1, handled: 1, retried: 0 });
    const [letter] = await broker().listDeadLetters(counter.stream);
    expect(letter!.envelope?.metadata.headers.id).toBe(unsigned.metadata.headers.id);
    expect(letter!.error).toMatch(/MissingChecksumError: Message .* has no checksum .*accept_unsigned_envelopes = true/);
  });

  it('handles unsigned envelopes when [server.stream_subscription] accept_unsigned_envelopes = true; a wrong checksum is still refused', async () => {
    await start({ accept_unsigned_envelopes: true });
    const altered = counter.ticked('b', 1);
    altered.data.n = 99;
    await publish(stripEnvelope(counter.ticked('a', 1)), altered);
    await eventually(async () => (await drained()) && tally().deadLettered === 1);
    expect(counter.probe.seen.get('a')).toEqual([1]);
    expect((await broker().listDeadLetters(counter.stream))[0]!.error).toMatch(/ChecksumMismatchError/);
  });

  it('regression: an unsigned position marker is dead-lettered, not followed', async () => {
    await start();
    const abandoned = counter.ticked('a', 2);
    const marker = stripEnvelope(
      positionPassedEnvelope({
        position: positionOf(abandoned)!,
        messageId: abandoned.metadata.headers.id,
        messageType: abandoned.metadata.headers.type,
        streamCategory: counter.stream,
        reason: 'forged',
      }),
    );
    await publish(counter.ticked('a', 1), marker);
    await eventually(async () => (await drained()) && tally().deadLettered === 1);
    expect(tally().passedAbandoned).toBe(0);
    expect((await broker().listDeadLetters(counter.stream))[0]!.error).toMatch(/MissingChecksumError/);
    expect(logs.records.some((r) => r.msg === 'position marker refused: it cannot be trusted to move its key')).toBe(true);
  });

  it('regression: a message whose dead-lettering fails on every delivery is acked with an ERROR past the poison-pill bound, not reclaimed forever', async () => {
    // max_retries 0: given up after 2 × 1 deliveries; claim_idle_ms 50 brings it back quickly.
    await start({ max_retries: 0 }, { provider: 'dlq-refusing-inline', claim_idle_ms: 50 }, 20);
    counter.probe.failWith.set(1, () => new ValidationError({ n: ['is refused'] }, 'Tally'));
    await publish(counter.ticked('a', 1), counter.ticked('a', 2));
    await eventually(async () => (await drained()) && tally().dropped === 1, 15_000);
    expect(counter.probe.seen.get('a')).toEqual([2]);
    expect(tally().leftPending).toBeGreaterThanOrEqual(1);
    const [dropped] = logs.records.filter((r) => r.msg.startsWith('message dropped: it failed and could not be dead-lettered'));
    expect(dropped).toMatchObject({ level: 'error', deliveryCount: 3 });
    // The first delivery logged the handler's error; later ones know it only as dead-lettered before.
    expect(logs.records.some((r) => r.msg.startsWith('message cannot be handled') && JSON.stringify(r.error).includes('ValidationError'))).toBe(true);
    expect(JSON.stringify(dropped!.deadLetterError)).toMatch(/the dead-letter stream refuses/);
    expect(String(dropped!.hint)).toContain(String(dropped!.brokerMessageId));
  });
});
