/**
 * `status` and `status --wait-drained` from a process that holds no deliveries (the CLI): another
 * broker instance's unacked messages must show as pending and keep the group unsettled, which
 * only the management API (`management_uri`) can tell; without it the broker must say so.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BrokerArgumentError } from '@protean-ts/core';
import { RABBITMQ, RABBITMQ_MANAGEMENT, sampleBrokerEnvelope, servicesUp } from '@protean-ts/conformance';
import { RabbitMQBroker } from '../src/index.js';
import { STATS_DELIVERY_SLACK_MS } from '../src/rabbitmq-group-backlog.js';
import { createVhost, deleteVhost, eventually, rabbitUri, RABBITMQ_MANAGEMENT_URI } from './rabbitmq-test-support.js';

const up = await servicesUp(RABBITMQ, RABBITMQ_MANAGEMENT);
const vhost = up ? await createVhost('backlog') : '';
afterAll(() => (up ? deleteVhost(vhost) : undefined));

/** RabbitMQ's default collect_statistics_interval, which this machine runs with. */
const STATS_INTERVAL_MS = 5_000;

describe.skipIf(!up)('rabbitmq group backlog read from another process', () => {
  const opened: RabbitMQBroker[] = [];
  const open = (settings: Record<string, unknown> = {}) => {
    const broker = new RabbitMQBroker('events', { provider: 'rabbitmq', uri: rabbitUri(vhost), ...settings });
    opened.push(broker);
    return broker;
  };
  const watcher = () => open({ management_uri: RABBITMQ_MANAGEMENT_URI, management_stats_interval_ms: STATS_INTERVAL_MS });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });

  /** A worker instance that has read one message of `stream` for group `g` and holds it unacked. */
  const workerHolding = async (stream: string) => {
    const worker = open();
    await worker.ensureGroup(stream, 'g');
    await worker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 1) });
    const [held] = await worker.read(stream, 'g', 'w', { count: 1, blockMs: 2_000 });
    expect(held).toBeDefined();
    return { worker, held: held! };
  };

  it("lists the groups another instance declared, with their backlog, in consumerLag (the relay's back-pressure)", async () => {
    const stream = 'lagging';
    const { worker, held } = await workerHolding(stream);
    await worker.ensureGroup(stream, 'idle');
    await worker.publish({ stream, envelope: sampleBrokerEnvelope(stream, 2) });
    const relay = watcher();
    // g: one unacked (read) and one ready; idle: the one published after it was bound.
    await eventually('the API reports the unacked delivery', async () => (await relay.groupStatus(stream, 'g')).pending === 1, 15_000);
    const lags = await relay.consumerLag(stream);
    expect(Object.fromEntries(lags.map((lag) => [lag.group, lag.behind]))).toEqual({ g: 2, idle: 1 });
    await worker.ack(stream, 'g', [held.id]);
    // Without the API, a process that declared no group of the stream knows none of them.
    expect(await open().consumerLag(stream)).toEqual([]);
  });

  it("shows another instance's unacked delivery as pending, read through the management API", async () => {
    const stream = 'held';
    const { worker, held } = await workerHolding(stream);
    const cli = watcher();
    await eventually('the API reports the unacked delivery', async () => (await cli.groupStatus(stream, 'g')).pending === 1, 15_000);
    expect(await cli.groupStatus(stream, 'g')).toEqual({ pending: 1, lag: 0, exists: true });
    await worker.ack(stream, 'g', [held.id]);
    await eventually('the API reports it acked', async () => (await cli.groupStatus(stream, 'g')).pending === 0, 15_000);
  });

  it('is not settled through a mark while another instance holds a message, and is once it acked and a stats interval passed', async () => {
    const stream = 'drain';
    const { worker, held } = await workerHolding(stream);
    const cli = watcher();
    const { head } = await cli.groupProgress(stream, 'g');
    expect(head).toMatch(/^at:\d+$/);
    const heldUntil = Date.now() + STATS_INTERVAL_MS * 2 + 1_000;
    while (Date.now() < heldUntil) {
      expect((await cli.groupProgress(stream, 'g', head!)).settled).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await worker.ack(stream, 'g', [held.id]);
    await eventually('the group is settled through the mark', async () => (await cli.groupProgress(stream, 'g', head!)).settled, 20_000);
  });

  it('is not settled through a fresh mark before one stats interval has passed, even when the queue is empty', async () => {
    const stream = 'idle';
    await open().ensureGroup(stream, 'g');
    const cli = watcher();
    const { head } = await cli.groupProgress(stream, 'g');
    const markedAt = Number(head!.slice('at:'.length));
    expect((await cli.groupProgress(stream, 'g', head!)).settled).toBe(false);
    await eventually('the group is settled through the mark', async () => (await cli.groupProgress(stream, 'g', head!)).settled, 15_000);
    expect(Date.now() - markedAt).toBeGreaterThanOrEqual(STATS_INTERVAL_MS + STATS_DELIVERY_SLACK_MS);
  });

  it('refuses to judge settled through a mark without management_uri, saying how to fix it', async () => {
    const stream = 'nomanagement';
    await workerHolding(stream);
    const cli = open();
    const marked = await cli.groupProgress(stream, 'g');
    expect(marked).toMatchObject({ exists: true, consumers: 1, settled: false });
    const refusal = await cli.groupProgress(stream, 'g', marked.head!).then(
      () => null,
      (err: Error) => err,
    );
    expect(refusal?.message).toMatch(/management_uri: is not set, and RabbitMQ cannot report the unacked messages other connections/);
    expect(refusal?.message).toContain('rabbitmq-plugins enable rabbitmq_management');
    expect(refusal?.message).toContain('brokers.events.management_uri');
    expect(await cli.groupStatus(stream, 'g')).toEqual({ pending: 0, lag: 0, exists: true, pendingLocalOnly: true });
  });

  it('refuses a mark that is not its own', async () => {
    const stream = 'foreign';
    await open().ensureGroup(stream, 'g');
    await expect(watcher().groupProgress(stream, 'g', '1700000000000-0')).rejects.toThrow(BrokerArgumentError);
  });

  it('names management_uri and the fix when the API refuses the credentials or cannot be reached, never showing the password', async () => {
    const stream = 'badapi';
    await open().ensureGroup(stream, 'g');
    const refused = await open({ management_uri: 'http://guest:n0tThePassword@127.0.0.1:15672' })
      .groupStatus(stream, 'g')
      .catch((err: Error) => err);
    expect((refused as Error).message).toMatch(
      /\[brokers\.events\] management_uri: the RabbitMQ management API at http:\/\/guest:\*\*\*@127\.0\.0\.1:15672 refused the credentials \(HTTP 401\); check the user and password/,
    );
    expect((refused as Error).message).not.toContain('n0tThePassword');
    const unreachable = await open({ management_uri: 'http://guest:s3cret@127.0.0.1:1' })
      .groupStatus(stream, 'g')
      .catch((err: Error) => err);
    expect((unreachable as Error).message).toMatch(
      /management_uri: cannot reach the RabbitMQ management API at http:\/\/guest:\*\*\*@127\.0\.0\.1:1.*rabbitmq-plugins enable rabbitmq_management/,
    );
    expect((unreachable as Error).message).not.toContain('s3cret');
  });

  it('reads the default vhost as %2F', async () => {
    const broker = new RabbitMQBroker('events', { provider: 'rabbitmq', uri: 'amqp://guest:guest@127.0.0.1:5672', management_uri: RABBITMQ_MANAGEMENT_URI });
    opened.push(broker);
    expect(await broker.groupStatus(`protean-test-missing-${Date.now()}`, 'g')).toEqual({ pending: 0, lag: 0, exists: false });
  });
});
