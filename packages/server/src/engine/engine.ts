/**
 * The Engine runs a domain's asynchronous side in one process: an OutboxProcessor per managed
 * database and target broker, a stream subscription per command handler (and per event handler
 * when `event_processing = "async"`), a broker subscription per `@domain.subscriber`, and the
 * health endpoints. At start it waits for its databases and brokers (see infrastructure-wait.ts);
 * `stop()` finishes the work in flight before closing connections.
 */
import {
  getLogger,
  laneStream,
  LIVE_LANE,
  partitionStream,
  type BaseSubscriber,
  type Broker,
  type ClassRef,
  type Domain,
  type InitOptions,
  type Logger,
} from '@protean-ts/core';
import { createOutboxProcessors, type OutboxProcessor } from '@protean-ts/outbox';
import { HealthServer, type MetricsEndpoint } from '../health/health-server.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { installProcessMeterProvider, type ProcessMetrics } from '../metrics/process-meter-provider.js';
import { prometheusText } from '../metrics/prometheus-text.js';
import type { HealthCheck, HealthReport } from '../health/health-report.js';
import { createBrokerSubscription } from '../subscriptions/broker-subscription.js';
import { createStreamSubscription } from '../subscriptions/stream-subscription.js';
import { EventStoreSubscription } from '../subscriptions/event-store-subscription.js';
import { checkFlowControlNames } from '../subscriptions/flow/flow-gates.js';
import { LanedSubscription, laneBudget } from '../subscriptions/laned-subscription.js';
import { partitionCount, plannedLanes, planSubscriptions, plannedStreams, type PlannedSubscription } from '../subscriptions/subscription-plan.js';
import { PartitionOwnership } from '../subscriptions/partition-ownership.js';
import { PartitionedSubscription } from '../subscriptions/partitioned-subscription.js';
import type { Subscription, SubscriptionStatus } from '../subscriptions/subscription-status.js';
import { consumerName } from './consumer-name.js';
import { EngineJanitors } from './engine-janitors.js';
import { waitUntilDrained, type DrainProbe, type DrainResult } from './drain-monitor.js';
import { eventStoreProbe, outboxProbe, subscriptionProbe } from './drain-probes.js';
import { engineHealth } from './engine-health.js';
import { InfrastructureWait } from './infrastructure-wait.js';

export interface EngineOptions {
  /** Serve `/livez`, `/readyz`, `/healthz` on `[server.health]`; a port overrides the configured one. Default true. */
  health?: boolean | { port: number };
  /** 1..N when supervised; shows in every log line and in the consumer name. */
  workerId?: number | null;
  /** Options for `domain.init()` when the domain is not initialized yet (the Engine connects itself, waiting for services). */
  init?: InitOptions;
  logger?: Logger;
  /**
   * How often each subscription looks for messages a dead consumer left pending. Default: half
   * the broker's `claim_idle_ms` (1 s to 30 s), so a message becomes reclaimable and is taken
   * over within about 1.5 × claim_idle_ms.
   */
  reclaimIntervalMs?: number;
  /** Test mode's polling: interval and consecutive idle checks. Default 200 ms × 3. */
  drain?: { intervalMs: number; quietChecks: number };
}

const OUTBOX_BROKER_PROBE = { initialMs: 100, maxMs: 500 };
const OUTBOX_DATABASE_RETRY = { initialMs: 200, maxMs: 1_000 };

type EngineState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Engine {
  readonly consumer: string;
  private readonly log: Logger;
  private state: EngineState = 'new';
  private processors: OutboxProcessor[] = [];
  private subscriptions: { sub: Subscription; broker: Broker | null }[] = [];
  /** This process's share of the stream partitions; null with `outbox.partitions = 1`. */
  private ownership: PartitionOwnership | null = null;
  private janitors: EngineJanitors | null = null;
  private healthServer: HealthServer | null = null;
  private healthPort: number | null = null;
  private processMetrics: ProcessMetrics | null = null;
  private engineMetrics: EngineMetrics | null = null;
  private infrastructure: InfrastructureWait | null = null;
  private readonly stopping = new AbortController();
  private starting: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;

  constructor(
    readonly domain: Domain,
    private readonly options: EngineOptions = {},
  ) {
    const workerId = options.workerId ?? null;
    this.consumer = consumerName(workerId);
    this.log = options.logger ?? getLogger('server', workerId === null ? {} : { workerId });
  }

  /** The port the health endpoints listen on, once started (null when disabled). */
  get boundHealthPort(): number | null {
    return this.healthPort;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`The Engine was already started (state: ${this.state}); create a new Engine to start again`);
    this.state = 'starting';
    this.starting = this.startParts();
    return this.starting;
  }

  private async startParts(): Promise<void> {
    const { domain } = this;
    if (!domain.runtime.isReady) await domain.init({ ...this.options.init, connect: false });
    const plan = planSubscriptions(domain);
    checkFlowControlNames(domain, plan);
    if (domain.config.server.health.metrics) this.installMetrics();
    // Health first: while databases and brokers are awaited, /livez answers and /readyz names what is missing.
    if (this.options.health !== false) await this.startHealth();
    this.infrastructure = new InfrastructureWait(domain, {
      signal: this.stopping.signal,
      timeoutMs: domain.config.server.startup_timeout_seconds * 1000,
      // A service that comes up is found within about a second (and /readyz with it).
      maxDelayMs: 1_000,
      logger: this.log,
    });
    await this.infrastructure.run();
    if (this.stopping.signal.aborted) return;
    this.janitors = new EngineJanitors(this.domain, this.log);
    await this.janitors.startInbox(plan.length > 0);
    if (this.stopping.signal.aborted) return;
    await this.janitors.startOutcomes(
      plan.some((entry) => entry.role === 'commandHandler'),
      this.stopping.signal,
    );
    if (this.stopping.signal.aborted) return;
    await this.createGroupsBeforePublishing(plan);
    if (this.stopping.signal.aborted) return;

    const processors = createOutboxProcessors(domain, {
      workerId: this.consumer,
      logger: this.log.child({}, 'outbox'),
      // Short ceilings: a processor resumes (and /readyz follows) within about a second of a
      // service's return. A probe of a broker that is still down fails without a round trip.
      brokerProbe: OUTBOX_BROKER_PROBE,
      databaseRetry: OUTBOX_DATABASE_RETRY,
    });
    for (const processor of processors) {
      if (this.stopping.signal.aborted) return;
      await processor.start();
      this.processors.push(processor);
    }
    if (this.stopping.signal.aborted) return;
    for (const entry of plan) this.subscriptions.push(this.subscribe(entry));
    for (const { sub } of this.subscriptions) sub.start();
    this.ownership?.start();
    if (this.processMetrics) {
      this.engineMetrics = new EngineMetrics({ domain, subscriptions: () => this.subscriptionStatuses(), processors: () => this.processors });
    }
    if (this.stopping.signal.aborted) return;

    this.state = 'running';
    this.log.info('engine started', {
      domain: domain.name,
      consumer: this.consumer,
      outboxProcessors: this.processors.map((p) => p.name),
      subscriptions: this.subscriptions.map(({ sub }) => describe(sub.status())),
      ...(this.healthPort !== null ? { healthPort: this.healthPort } : {}),
    });
    if (!domain.outboxEnabled) {
      this.log.warn('the outbox is off: nothing is published to brokers; set enable_outbox = true in domain.toml to relay events');
    }
  }

  /** What this engine runs, by name (`outbox:<processor>`, `subscription:<group>`). */
  startedNames(): string[] {
    return [...this.processors.map((p) => `outbox:${p.name}`), ...this.subscriptions.map(({ sub }) => `subscription:${sub.name}`)];
  }

  subscriptionStatuses(): SubscriptionStatus[] {
    return this.subscriptions.map(({ sub }) => sub.status());
  }

  /** Stops reading, finishes handlers and outbox batches in flight, closes connections. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  async healthReport(): Promise<HealthReport> {
    if (this.state !== 'running') {
      const engine: HealthCheck = { name: 'engine', kind: 'engine', ok: false, detail: this.state };
      // While starting: which databases and brokers are still awaited.
      const services = this.state === 'starting' ? (this.infrastructure?.checks() ?? []) : [];
      return { ready: false, checks: [...services, engine] };
    }
    return engineHealth({
      providers: this.domain.providers,
      brokers: this.domain.brokers,
      processors: this.processors,
      subscriptions: this.subscriptions.map(({ sub }) => sub),
    });
  }

  /** Alias used by the worker runner. */
  health(): Promise<HealthReport> {
    return this.healthReport();
  }

  /** Test mode: resolves once every outbox and consumer group is empty for a few checks in a row. */
  waitUntilDrained(timeoutMs: number): Promise<DrainResult> {
    const probes: DrainProbe[] = [];
    if (this.domain.outboxEnabled) {
      for (const [name, provider] of this.domain.providers) if (provider.managed) probes.push(outboxProbe(name, provider));
    }
    for (const { sub, broker } of this.subscriptions) {
      probes.push(sub instanceof EventStoreSubscription ? eventStoreProbe(sub) : subscriptionProbe(sub, broker!));
    }
    const drain = this.options.drain ?? { intervalMs: 200, quietChecks: 3 };
    return waitUntilDrained({ probes, ...drain, timeoutMs, signal: this.stopping.signal });
  }

  /**
   * Every stream subscription's consumer group exists before this process's outbox publishes: a
   * broker that delivers to a group only what was published after the group existed (RabbitMQ)
   * must not see a fresh deployment's first events go out before its groups. A failure is left to
   * the subscription, which creates its group when it starts anyway.
   */
  private async createGroupsBeforePublishing(plan: readonly PlannedSubscription[]): Promise<void> {
    for (const entry of plan) {
      if (entry.source !== 'stream' || this.stopping.signal.aborted) continue;
      try {
        for (const stream of plannedStreams(this.domain, entry)) await this.domain.runtime.infrastructure.broker(entry.broker).ensureGroup(stream, entry.group);
      } catch (err) {
        this.log.warn('could not create a consumer group before publishing; the subscription creates it when it starts', {
          stream: entry.stream,
          group: entry.group,
          error: err,
        });
      }
    }
  }

  private subscribe(entry: PlannedSubscription): { sub: Subscription; broker: Broker | null } {
    const { domain } = this;
    const { server } = domain.config;
    if (entry.source === 'event_store') return { sub: this.subscribeToEventStore(entry), broker: null };
    const broker = domain.runtime.infrastructure.broker(entry.broker);
    const common = {
      domain,
      group: entry.group,
      stream: entry.stream,
      broker,
      consumer: this.consumer,
      settings: server.stream_subscription,
      batchSize: server.messages_per_tick,
      tickIntervalMs: server.tick_interval * 1000,
      reclaimIntervalMs: this.options.reclaimIntervalMs ?? Math.min(30_000, Math.max(1_000, broker.claimIdleMs / 2)),
      logger: this.log.child({ handler: entry.cls.name }, 'subscription'),
    };
    // The relay publishes a lane's partition p to partitionStream(laneStream(stream, lane), p): read the same.
    const loopOnLane = (lane: string, partition: number | null) => {
      const stream = partition === null ? laneStream(entry.stream, lane) : partitionStream(laneStream(entry.stream, lane), partition);
      return entry.role === 'subscriber'
        ? createBrokerSubscription({ ...common, stream, subscriber: entry.cls as ClassRef<BaseSubscriber> })
        : createStreamSubscription({ ...common, ...laneBudget(lane, domain.config.outbox.lanes.share, common), stream, handler: entry.cls });
    };
    const lanes = plannedLanes(domain, entry);
    const loopOn = (partition: number | null): Subscription =>
      lanes.length === 1 ? loopOnLane(LIVE_LANE, partition) : new LanedSubscription(lanes.map((lane) => ({ lane, loop: loopOnLane(lane, partition) })));
    const partitions = partitionCount(domain, entry);
    if (partitions === 1) return { sub: loopOn(null), broker };
    const sub = new PartitionedSubscription({
      name: entry.group,
      kind: entry.role === 'subscriber' ? 'broker' : 'stream',
      stream: entry.stream,
      group: entry.group,
      broker: broker.name,
      partitions,
      loopFor: (partition) => loopOn(partition),
      logger: common.logger,
    });
    this.partitionOwnership(partitions).listen(sub);
    return { sub, broker };
  }

  /** The one ownership every partitioned subscription of this process shares, so a key's partition is read here for all of them. */
  private partitionOwnership(partitions: number): PartitionOwnership {
    const { domain } = this;
    const { inbox, outbox, server } = domain.config;
    if (this.ownership) return this.ownership;
    const provider = domain.providers.get(inbox.database);
    if (!provider)
      throw new Error(`inbox.database "${inbox.database}" has no provider; check [databases.${inbox.database}] in domain.toml (it keeps the partition leases)`);
    this.ownership = new PartitionOwnership({
      store: provider.partitionLeases,
      scope: `${domain.name}:${outbox.broker}`,
      member: this.consumer,
      partitions,
      leaseMs: server.partition_lease_seconds * 1000,
      logger: this.log.child({ partitions }, 'partitions'),
    });
    return this.ownership;
  }

  private subscribeToEventStore(entry: PlannedSubscription): EventStoreSubscription {
    const { domain } = this;
    const { server, event_store: eventStore } = domain.config;
    const provider = domain.providers.get(eventStore.database);
    if (!provider) throw new Error(`event_store.database "${eventStore.database}" has no provider; check [databases.${eventStore.database}] in domain.toml`);
    return new EventStoreSubscription({
      domain,
      handler: entry.cls,
      name: entry.group,
      category: entry.stream,
      store: provider.eventStore,
      database: eventStore.database,
      consumer: this.consumer,
      settings: server.stream_subscription,
      eventStoreSettings: server.event_store_subscription,
      batchSize: server.messages_per_tick,
      logger: this.log.child({ handler: entry.cls.name }, 'subscription'),
    });
  }

  private installMetrics(): void {
    this.processMetrics = installProcessMeterProvider();
    if (!this.processMetrics) {
      this.log.warn(
        'another OpenTelemetry MeterProvider was registered globally first: protean-ts metrics report to it, and this server serves no metrics endpoint',
        {
          hint: 'export them with that provider, or do not register a global MeterProvider in the server process, or set [server.health] metrics = false to silence this',
        },
      );
    }
  }

  private metricsEndpoint(): MetricsEndpoint | undefined {
    const metrics = this.processMetrics;
    if (!metrics) return undefined;
    return { path: this.domain.config.server.health.metrics_path, scrape: async () => prometheusText((await metrics.collect()).resourceMetrics) };
  }

  private async startHealth(): Promise<void> {
    const configured = this.domain.config.server.health;
    const port = typeof this.options.health === 'object' ? this.options.health.port : configured.port;
    const metrics = this.metricsEndpoint();
    this.healthServer = new HealthServer({ host: configured.host, port, check: () => this.healthReport(), logger: this.log, ...(metrics ? { metrics } : {}) });
    this.healthPort = await this.healthServer.start();
  }

  private async shutdown(): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    this.stopping.abort();
    // A signal during start: let start reach a step boundary, so nothing it opens is left behind.
    await this.starting?.catch(() => undefined);
    this.state = 'stopping';
    const started = Date.now();
    // Subscriptions first: their handlers may still commit outbox rows the processors should relay.
    // The partitions' loops stop before their leases are released, so the next owner starts after them.
    await this.ownership?.stop();
    await Promise.all(this.subscriptions.map(({ sub }) => sub.stop()));
    this.engineMetrics?.dispose();
    await Promise.all(
      this.processors.map((p) => p.stop().catch((err: unknown) => this.log.error('outbox processor failed to stop', { processor: p.name, error: err }))),
    );
    await this.healthServer?.stop();
    await this.janitors?.stop();
    // Closing the brokers wakes the reads still blocked in the loops; then the loops end.
    await this.domain.close().catch((err: unknown) => this.log.error('closing connections failed', { error: err }));
    await Promise.all(this.subscriptions.map(({ sub }) => sub.finished()));
    this.state = 'stopped';
    const statuses = this.subscriptionStatuses();
    this.log.info('engine stopped', {
      tookMs: Date.now() - started,
      handled: sum(statuses, 'handled'),
      deadLettered: sum(statuses, 'deadLettered'),
      leftPending: sum(statuses, 'leftPending'),
    });
  }
}

function describe(status: SubscriptionStatus): string {
  return status.kind === 'event_store' ? `${status.name} <- ${status.broker} ${status.stream}` : `${status.name} <- ${status.broker}:${status.stream}`;
}

function sum(statuses: readonly SubscriptionStatus[], key: 'handled' | 'deadLettered' | 'leftPending'): number {
  return statuses.reduce((total, s) => total + s[key], 0);
}
