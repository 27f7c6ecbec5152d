/**
 * The supervisor's side of a metrics scrape: asks every running worker for its metrics over IPC,
 * waits for the answers (a worker that does not answer in time is left out and named in the
 * log), merges them, and writes one exposition. The backlog gauges come from the lowest-numbered
 * worker that answered; counters and histograms are the sum over the workers that answered.
 */
import type { ChildProcess } from 'node:child_process';
import type { Logger } from '@protean-ts/core';
import { defaultResource } from '@opentelemetry/resources';
import { prometheusText } from '../metrics/prometheus-text.js';
import { mergeWorkerMetrics, type WorkerMetrics } from '../metrics/worker-metrics-merge.js';
import type { MetricsRequest, WorkerMessage } from './worker-messages.js';

/** How long a scrape waits for the workers; Prometheus' own scrape timeout defaults to 10 s. */
const ANSWER_TIMEOUT_MS = 5_000;

type MetricsAnswer = Extract<WorkerMessage, { type: 'protean:metrics' }>;

export class WorkerMetricsScrape {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: MetricsAnswer) => void>();

  constructor(private readonly logger: Logger) {}

  /** Routes a worker's answer to the scrape waiting for it. */
  answer(message: MetricsAnswer): void {
    this.waiting.get(message.requestId)?.(message);
  }

  async scrape(workers: readonly { id: number; child: ChildProcess }[]): Promise<string> {
    const answers = await Promise.all(workers.map((w) => this.ask(w)));
    const late = workers.filter((_, i) => answers[i] === null).map((w) => w.id);
    if (late.length)
      this.logger.warn('metrics scrape: workers did not answer in time; left out of this scrape', { workers: late, timeoutMs: ANSWER_TIMEOUT_MS });
    const collected: WorkerMetrics[] = answers.flatMap((a) => (a?.scopeMetrics ? [{ workerId: a.workerId, scopeMetrics: a.scopeMetrics }] : []));
    // The workers' resource is the SDK's default one (service name, SDK version): the same for each.
    return prometheusText({ resource: defaultResource(), scopeMetrics: mergeWorkerMetrics(collected) });
  }

  private ask(worker: { id: number; child: ChildProcess }): Promise<MetricsAnswer | null> {
    const requestId = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), ANSWER_TIMEOUT_MS);
      const finish = (answer: MetricsAnswer | null) => {
        clearTimeout(timer);
        this.waiting.delete(requestId);
        resolve(answer);
      };
      this.waiting.set(requestId, finish);
      const request: MetricsRequest = { type: 'protean:metrics-request', requestId };
      try {
        worker.child.send(request, (err) => (err ? finish(null) : undefined));
      } catch {
        finish(null);
      }
    });
  }
}
