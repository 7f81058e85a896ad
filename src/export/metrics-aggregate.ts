/**
 * The metrics of a run split over worker threads, served as one: each worker keeps its own
 * registry (the hot path stays a field increment in its own thread) and sends a snapshot of it
 * (`registry.getMetricsAsJSON()`, plain data) about once a second and at its end; a scrape or
 * push renders the latest snapshots combined by prom-client's `AggregatorRegistry.aggregate`.
 * Counters and histogram buckets add, so the combined series are exact as of each worker's
 * last snapshot; gauges combine by their spec's `aggregator` (in flight adds, the last
 * rate-limit Remaining takes the lowest).
 */
import type { AggregatorRegistry, MetricObjectWithValues, MetricValue } from 'prom-client';
import { promClient } from './prom-client-module.js';
import { RUN_METRICS } from '../slo/metric-names.js';
import type { MetricsSource } from './metrics-server.js';
import type { SettledView } from './run-metrics.js';

/** One worker's registry, as `getMetricsAsJSON()` gives it. Plain data (crosses threads). */
export type MetricsSnapshot = readonly MetricObjectWithValues<MetricValue<string>>[];

/** The combined metrics of several workers. */
export interface MetricsAggregate {
  /** What the /metrics server and the Pushgateway pusher render. */
  readonly source: MetricsSource;
  /** Replaces worker `index`'s snapshot (a later one holds everything an earlier one did). */
  update(index: number, snapshot: MetricsSnapshot): void;
  /**
   * The merged report settled the workers' 429s again on their merged evidence: from now on the
   * combined series carry the moves that make them equal its figures (as `RunMetrics.settle`).
   */
  settle(report: SettledView): void;
}

type Values = MetricObjectWithValues<MetricValue<string>>;
type Labels = Record<string, string | number>;

/**
 * The moves that bring the combined 429 series to `report`'s settled figures, as one more
 * snapshot of deltas (counters add): rate-limited kinds, and the SLI outcome of the 429s in the
 * SLI events and the requests (premature is bad; expected and uncertain are excluded).
 */
function settlement(snapshots: readonly (readonly Values[])[], report: SettledView): Values[] {
  // Every worker's series of a metric (the same labels in several add up).
  const series = (name: string): { labels: Labels; value: number }[] =>
    snapshots.flatMap((snap) => snap.filter((m) => m.name === name).flatMap((m) => m.values.map((v) => ({ labels: v.labels as Labels, value: v.value }))));
  const limited = series(RUN_METRICS.rateLimited.name);
  const sli = series(RUN_METRICS.sliEvents.name);
  const requests = series(RUN_METRICS.requests.name);
  const out = { limited: [] as { labels: Labels; value: number }[], sli: [] as { labels: Labels; value: number }[], requests: [] as { labels: Labels; value: number }[] };
  const units = report.scenarios === undefined ? [[undefined, report] as const] : Object.entries(report.scenarios).map(([n, v]) => [n, v] as const);
  for (const [unit, view] of units) {
    const mine = (l: Labels): boolean => unit === undefined || l.scenario === unit;
    for (const [op, target] of Object.entries(view.rateLimit.byOp ?? {})) {
      const at = (l: Labels): boolean => mine(l) && l.operation === op;
      let toBad = 0;
      for (const kind of ['expected', 'premature', 'uncertain'] as const) {
        const have = limited.filter((v) => at(v.labels) && v.labels.kind === kind);
        const now = have.reduce((n, v) => n + v.value, 0);
        const base = have[0]?.labels ?? limited.find((v) => at(v.labels))?.labels;
        if (base === undefined || now === target[kind]) continue;
        out.limited.push({ labels: { ...base, kind }, value: target[kind] - now });
        if (kind === 'premature') toBad = target[kind] - now;
      }
      if (toBad === 0) continue;
      const [from, to] = toBad > 0 ? ['excluded', 'bad'] : ['bad', 'excluded'];
      let n = Math.abs(toBad);
      const sliFrom = sli.find((v) => at(v.labels) && v.labels.sli === from);
      if (sliFrom !== undefined) {
        out.sli.push({ labels: sliFrom.labels, value: -n }, { labels: { ...sliFrom.labels, sli: to }, value: n });
      }
      // The 429s among the requests: their code first, then any 4xx of the operation.
      const candidates = requests.filter((v) => at(v.labels) && v.labels.status_class === '4xx' && v.labels.outcome === from && v.value > 0).sort((a, b) => Number(b.labels.code === 'RATE_LIMITED') - Number(a.labels.code === 'RATE_LIMITED'));
      for (const c of candidates) {
        if (n <= 0) break;
        const k = Math.min(n, c.value);
        out.requests.push({ labels: c.labels, value: -k }, { labels: { ...c.labels, outcome: to }, value: k });
        n -= k;
      }
    }
  }
  const metric = (spec: { name: string; help: string }, values: { labels: Labels; value: number }[]): Values => ({ name: spec.name, help: spec.help, type: 'counter', aggregator: 'sum', values }) as unknown as Values;
  return [metric(RUN_METRICS.rateLimited, out.limited), metric(RUN_METRICS.sliEvents, out.sli), metric(RUN_METRICS.requests, out.requests)].filter((m) => m.values.length > 0);
}

/** An aggregate with no snapshots yet: it renders an empty exposition until the first arrives. */
export function createMetricsAggregate(): MetricsAggregate {
  const latest = new Map<number, MetricsSnapshot>();
  let settled: SettledView | undefined;
  const combined = (): ReturnType<typeof AggregatorRegistry.aggregate> => {
    // aggregate() only reads the snapshots; its parameter type is just not readonly.
    const all = [...latest.values()] as Values[][];
    return promClient().AggregatorRegistry.aggregate(settled === undefined ? all : [...all, settlement(all, settled)]);
  };
  return {
    source: {
      contentType: promClient().AggregatorRegistry.PROMETHEUS_CONTENT_TYPE,
      metrics: () => combined().metrics(),
    },
    update(index, snapshot) {
      latest.set(index, snapshot);
    },
    settle(report) {
      settled = report;
    },
  };
}
