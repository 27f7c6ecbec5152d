/**
 * A small domain for flow-control tests: jobs whose `Stepped` events a `Caller` handler takes,
 * noting when each run starts and ends (in a probe shared by every worker of the test, which all
 * run in this process), and sleeping `workMs` in between to stand for a call out. `Noted`
 * events share the jobs' streams, and Caller does not handle them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type ConfigOverrides } from '@protean-ts/core';
import type { FlowBroker } from './flow-brokers.js';
import type { TempDatabase } from './real-services.js';

export interface CallProbe {
  /** Start time (ms) of every run, in start order. */
  starts: number[];
  /** `jobId:n` of every run that finished. */
  handled: string[];
  running: number;
  maxRunning: number;
  workMs: number;
  /** Called as a run starts: throwing stands for the call out failing (a dependency that is down). */
  beforeRun?: () => void;
}

export function newCallProbe(workMs = 0): CallProbe {
  return { starts: [], handled: [], running: 0, maxRunning: 0, workMs };
}

/** `subscription`: keys of `[server.stream_subscription]` beyond the fixture's; `server`: of `[server]`; `outbox`: of `[outbox]`. */
export function flowDomain(
  db: TempDatabase,
  broker: FlowBroker,
  flow: Record<string, unknown>,
  probe: CallProbe,
  subscription: Record<string, unknown> = {},
  server: Record<string, unknown> = {},
  outbox: Record<string, unknown> = {},
) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-flow-'));
  const config: ConfigOverrides = {
    event_processing: 'async',
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 8 } },
    brokers: { default: broker.settings as never },
    server: {
      health: { port: 0 },
      tick_interval: 0.05,
      stream_subscription: { blocking_timeout_ms: 50, max_retries: 3, retry_delay_seconds: 0.05, ...subscription },
      flow_control: { Caller: flow },
      ...server,
    },
    outbox: { tick_interval: 0.05, ...outbox },
  };
  const domain = new Domain('Flow', { root, config });

  @domain.aggregate()
  class Job extends BaseAggregate {
    @field.integer({ required: true }) steps!: number;
  }

  @domain.event({ partOf: Job })
  class Stepped extends BaseEvent {
    @field.identifier({ required: true }) jobId!: string;
    @field.integer({ required: true }) n!: number;
  }

  @domain.eventHandler({ partOf: Job })
  class Caller extends BaseEventHandler {
    @handle(Stepped) async onStepped(event: Stepped): Promise<void> {
      probe.beforeRun?.();
      probe.starts.push(Date.now());
      probe.running += 1;
      probe.maxRunning = Math.max(probe.maxRunning, probe.running);
      try {
        if (probe.workMs > 0) await new Promise((resolve) => setTimeout(resolve, probe.workMs));
        probe.handled.push(`${event.jobId}:${event.n}`);
      } finally {
        probe.running -= 1;
      }
    }
  }

  @domain.event({ partOf: Job })
  class Noted extends BaseEvent {
    @field.identifier({ required: true }) jobId!: string;
  }

  /**
   * Commits `keys` jobs of `perKey` events each (one transaction per job), each job's followed by
   * a `Noted` when `thenNote`; returns the `jobId:n` tags of the Stepped events.
   */
  async function commitJobs(keys: number, perKey: number, { thenNote = false } = {}): Promise<string[]> {
    const tags: string[] = [];
    for (let k = 0; k < keys; k += 1) {
      const job = Job.create({ steps: 0 });
      for (let n = 1; n <= perKey; n += 1) {
        job.raise(Stepped.create({ jobId: job.id, n }));
        tags.push(`${job.id}:${n}`);
      }
      if (thenNote) job.raise(Noted.create({ jobId: job.id }));
      await domain.repositoryFor(Job).add(job);
    }
    return tags;
  }

  /** Commits one more event of an existing job. */
  async function commitStep(jobId: string, n: number): Promise<void> {
    const jobs = domain.repositoryFor(Job);
    const job = await jobs.get(jobId);
    job.steps += 1;
    job.raise(Stepped.create({ jobId, n }));
    await jobs.add(job);
  }

  async function setUp(): Promise<void> {
    await domain.init();
    for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
  }
  return { domain, commitJobs, commitStep, setUp, Caller };
}
