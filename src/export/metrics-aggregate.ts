/**
 * The metrics of a run split over worker threads, served as one: each worker keeps its own
 * registry (the hot path stays a field increment in its own thread) and sends a snapshot of it
 * (`registry.getMetricsAsJSON()`, plain data) about once a second and at its end; a scrape or
 * push renders the latest snapshots combined by prom-client's `AggregatorRegistry.aggregate`.
 * Counters and histogram buckets add, so the combined series are exact as of each worker's
 * last snapshot; gauges combine by their spec's `aggregator` (in flight adds, the last
 * rate-limit Remaining takes the lowest).
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { MetricsSource } from './metrics-server.js';

/** One worker's registry, as `getMetricsAsJSON()` gives it. Plain data (crosses threads). */
export type MetricsSnapshot = readonly MetricObjectWithValues<MetricValue<string>>[];

/** The combined metrics of several workers. */
export interface MetricsAggregate {
  /** What the /metrics server and the Pushgateway pusher render. */
  readonly source: MetricsSource;
  /** Replaces worker `index`'s snapshot (a later one holds everything an earlier one did). */
  update(index: number, snapshot: MetricsSnapshot): void;
}

/** An aggregate with no snapshots yet: it renders an empty exposition until the first arrives. */
export function createMetricsAggregate(): MetricsAggregate {
  const latest = new Map<number, MetricsSnapshot>();
  const combined = (): ReturnType<typeof AggregatorRegistry.aggregate> =>
    // aggregate() only reads the snapshots; its parameter type is just not readonly.
    AggregatorRegistry.aggregate([...latest.values()] as MetricObjectWithValues<MetricValue<string>>[][]);
  return {
    source: {
      contentType: AggregatorRegistry.PROMETHEUS_CONTENT_TYPE,
      metrics: () => combined().metrics(),
    },
    update(index, snapshot) {
      latest.set(index, snapshot);
    },
  };
}
