/**
 * @protean-ts/server: the Engine (outbox processors, stream, event-store and broker subscriptions, health
 * endpoints), the multi-worker Supervisor, and the process runner the `server` command uses.
 */
export { Engine, type EngineOptions } from './engine/engine.js';
export { InfrastructureUnavailableError, InfrastructureWait, type InfrastructureWaitOptions } from './engine/infrastructure-wait.js';
export { consumerName } from './engine/consumer-name.js';
export { InboxJanitor, InboxNotSetUpError } from './engine/inbox-janitor.js';
export { waitUntilDrained, type DrainProbe, type DrainResult, type DrainMonitorOptions } from './engine/drain-monitor.js';
export { ConsumerLoop, errorText, type ConsumerLoopOptions } from './subscriptions/consumer-loop.js';
export type { HandleRequest } from './subscriptions/message-runner.js';
export { createStreamSubscription, isPermanentMessageError, type StreamSubscriptionOptions } from './subscriptions/stream-subscription.js';
export { EventStoreSubscription, eventStoreInboxName, type EventStoreSubscriptionOptions } from './subscriptions/event-store-subscription.js';
export { createBrokerSubscription, type BrokerSubscriptionOptions } from './subscriptions/broker-subscription.js';
export { planSubscriptions, type PlannedSubscription } from './subscriptions/subscription-plan.js';
export type { Subscription, SubscriptionCounters, SubscriptionState, SubscriptionStatus } from './subscriptions/subscription-status.js';
export { HealthServer, type HealthServerOptions } from './health/health-server.js';
export { healthReport, type HealthCheck, type HealthCheckKind, type HealthReport } from './health/health-report.js';
export { Supervisor, type SupervisorOptions } from './supervisor/supervisor.js';
export { RestartPolicy, DEFAULT_RESTART_POLICY, type RestartPolicyOptions, type RestartDecision } from './supervisor/restart-policy.js';
export { runWorker, type RunWorkerOptions, type RunnableEngine } from './supervisor/worker-entry.js';
export { runSupervisor } from './supervisor/run-supervisor.js';
export { tagLogsWithWorker } from './supervisor/worker-log-tag.js';
export { assertDistributable } from './supervisor/distribution-check.js';
export { connectionBudgets, type ConnectionBudget } from './supervisor/connection-budget.js';
export { currentWorkerId, WORKER_ID_ENV, type WorkerMessage } from './supervisor/worker-messages.js';
export { NotDistributableError, type InProcessSetting } from './errors/not-distributable.error.js';
export { logProcessWarnings } from './process-warnings.js';
export { logConsoleOutput } from './console-output.js';
export { installShutdown, type ShutdownHandle, type ShutdownOptions, type ShutdownSignal } from './shutdown.js';
export { collectStatus, managedDatabases, eventStoreOf, DEFAULT_MAX_BEHIND, type CollectStatusOptions } from './status/collect-status.js';
export type {
  SystemStatus,
  OutboxReport,
  SubscriptionBacklog,
  StreamSubscriptionBacklog,
  EventStoreSubscriptionBacklog,
  RelayPressureReport,
} from './status/system-status.js';
export { DrainWatch, type DrainProgress, type OutboxDrain, type SubscriptionDrain } from './status/drain-watch.js';
export { eventsBehind, type EventsBehind } from './status/events-behind.js';
