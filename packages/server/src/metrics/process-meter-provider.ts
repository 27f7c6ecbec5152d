/**
 * The OpenTelemetry SDK side of a server process. protean-ts instruments itself through
 * `@opentelemetry/api` only; the server installs one MeterProvider per process as the global
 * provider, read by a pull reader when `/metrics` is scraped (or, in a supervised worker, when
 * the supervisor asks). Instruments an application creates with `metrics.getMeter(...)` in its
 * handlers land there too. When the application registered a global provider of its own first,
 * protean-ts's instruments report to that one and this process serves no `/metrics`.
 */
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type CollectionResult } from '@opentelemetry/sdk-metrics';

/** A reader that only collects on demand: the scrape decides when. */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface ProcessMetrics {
  collect(): Promise<CollectionResult>;
}

let installed: ProcessMetrics | null | undefined;

/** The provider installed in this process, if any (a supervised worker answers metric requests with it). */
export function currentProcessMetrics(): ProcessMetrics | null {
  return installed ?? null;
}

/** Installs the process's MeterProvider once; null when another global provider was there first. */
export function installProcessMeterProvider(): ProcessMetrics | null {
  if (installed !== undefined) return installed;
  const reader = new PullReader();
  const provider = new MeterProvider({ readers: [reader] });
  installed = metrics.setGlobalMeterProvider(provider) ? { collect: () => reader.collect() } : null;
  return installed;
}
