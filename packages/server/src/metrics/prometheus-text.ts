/**
 * The Prometheus text exposition of collected metrics, written by the OpenTelemetry Prometheus
 * exporter's serializer (names, units and `_total` suffixes derived the exporter's way).
 */
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** The content type of the text format the serializer writes. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const serializer = new PrometheusSerializer();

export function prometheusText(metrics: ResourceMetrics): string {
  return serializer.serialize(metrics);
}
