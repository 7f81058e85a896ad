/**
 * The exporters of `flowgauge run`: Prometheus `/metrics`, Pushgateway, OTLP spans and the live
 * dashboard, for a run in this thread or split over worker threads. In one thread they are
 * observers of the run. Over workers, each worker keeps its own registry and dashboard window
 * and sends snapshots; here they are combined (`createMetricsAggregate`, `createDashboardRelay`)
 * and served, pushed and published as one run's. Spans go from each worker to the endpoint.
 */
import { hostname } from 'node:os';
import type { TextSink } from './io.js';
import { createSystemClock } from '../core/clock.js';
import {
  createMetricsAggregate,
  createPushgatewayPusher,
  DEFAULT_FINAL_PUSH_TIMEOUT_MS,
  createRequestTracer,
  createRunMetrics,
  detectOtlpResource,
  enableOtlpExport,
  otlpTracesEndpoint,
  startDashboardServer,
  startMetricsServer,
  type DashboardServer,
  type MetricsServer,
  type MetricsSource,
  type OtlpExport,
  type OtlpExportOptions,
  type PushgatewayPusher,
  type RequestTracer,
  type RunMetrics,
  type RunMetricsOptions,
} from '../export/index.js';
import { renderDashboardPage, type Report } from '../report/index.js';
import { createDashboardObserver, createDashboardRelay, type DashboardRelay, type RunObserver, type RunProgress } from '../run/index.js';
import type { ResolvedRunPlan } from '../scenario/index.js';
import { withProcessEnv } from './process-env.js';
import { loadHtmlAssets } from './report-formats.js';
import type { WorkerExports, WorkerSnapshot } from './workers/worker-protocol.js';

/** What the command line asked to export. */
export interface ExporterWishes {
  readonly plan: ResolvedRunPlan;
  /** The target's name (`--target-name`): the `target` label of every series, and of the Pushgateway group. */
  readonly targetName: string;
  /** Worker threads (1: the run is in this thread). */
  readonly workers: number;
  readonly latencyBucketsS: readonly number[];
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  readonly pushgateway: string | undefined;
  readonly shard: { readonly index: number; readonly count: number } | undefined;
  /** The OTLP endpoint, '' for the environment's default, undefined for no spans. */
  readonly otel: string | undefined;
  /** The environment (`OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly dashboardPort: number | undefined;
  readonly log: TextSink;
  readonly stderr: TextSink;
}

/** The started exporters. */
export interface RunExporters {
  /** For a run in this thread: its metrics, tracer and dashboard observer. */
  readonly local: { readonly metrics: RunMetrics | undefined; readonly tracer: RequestTracer | undefined; readonly observers: readonly RunObserver[] };
  /** For a run over workers: what each worker exports, and where its snapshots go. */
  readonly workers: {
    readonly exports: WorkerExports;
    onSnapshot(worker: number, s: WorkerSnapshot): void;
    /** The merged progress (once a second): publishes the dashboard's tick. */
    tick(p: RunProgress): void;
  };
  readonly dashboard: DashboardServer | undefined;
  /** The final report: the dashboard links it and, over workers, publishes its end. */
  end(report: Report, html: string | undefined): void;
  /** Final push, flush, and every server closed; failures are said, never thrown. */
  close(): Promise<void>;
}

const tierLabel = (t: ResolvedRunPlan['scenarios'][number]['tier']): string => (typeof t === 'string' ? t : 'custom');

function metricsOptions(w: ExporterWishes): Omit<RunMetricsOptions, 'registry'> {
  const { plan } = w;
  const first = plan.scenarios[0];
  return {
    scenario: plan.name,
    target: w.targetName,
    tier: plan.scenarios.length > 1 || first === undefined ? 'mixed' : tierLabel(first.tier),
    latencyBucketsS: w.latencyBucketsS,
    // Several scenarios: each sample under its own scenario and tier.
    ...(plan.scenarios.length > 1 ? { scenarios: Object.fromEntries(plan.scenarios.map((x) => [x.name, tierLabel(x.tier)])) } : {}),
  };
}

/**
 * The OTLP export of `--otel` (`''`: from the environment): the traces URL as the OTLP exporter
 * specification resolves it, and the resource the SDK's environment detector finds (it reads
 * `process.env`, so the command's environment is put there while it looks).
 */
async function otlpOptionsOf(flag: string, env: ExporterWishes['env']): Promise<OtlpExportOptions> {
  const endpoint = otlpTracesEndpoint(flag, env);
  const names = ['OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES'] as const;
  // An unset name is set empty for the detection, which the SDK reads as unset.
  const vars = Object.fromEntries(names.map((n) => [n, env[n] ?? '']));
  const resourceAttributes = await withProcessEnv(vars, () => detectOtlpResource('flowgauge'));
  return { endpoint, serviceName: 'flowgauge', resourceAttributes };
}

/** Starts what `w` asks for; resolves once every server listens. */
export async function startRunExporters(w: ExporterWishes): Promise<RunExporters> {
  const split = w.workers > 1;
  const wantMetrics = w.metricsPort !== undefined || w.pushgateway !== undefined;
  const metrics = wantMetrics && !split ? createRunMetrics(metricsOptions(w)) : undefined;
  const aggregate = wantMetrics && split ? createMetricsAggregate() : undefined;
  const source: MetricsSource | undefined = metrics?.registry ?? aggregate?.source;
  let server: MetricsServer | undefined;
  let pusher: PushgatewayPusher | undefined;
  let otlp: OtlpExport | undefined;
  let dashboard: DashboardServer | undefined;
  let relay: DashboardRelay | undefined;
  let otelOptions: OtlpExportOptions | undefined;
  const close = async (): Promise<void> => {
    // Both bounded (one attempt of at most 1 s each, at once): a down exporter never holds the run's end.
    const [pushed] = await Promise.all([pusher?.stop(), otlp?.shutdown()]);
    if (pushed !== undefined && !pushed.ok && pusher !== undefined) {
      const why = pushed.error === 'TIMEOUT' ? `no answer within ${DEFAULT_FINAL_PUSH_TIMEOUT_MS / 1000} s` : (pushed.error ?? `HTTP ${pushed.status}`);
      w.stderr.write(`flowgauge: warning: the run's final metrics were not delivered to ${pusher.shownUrl} (${why}); the report has every figure\n`);
    }
    if (server !== undefined) {
      await server.close();
      w.log.write(`flowgauge: Prometheus metrics at ${server.url} closed (the run ended)\n`);
    }
    await dashboard?.close();
  };
  try {
    if (source !== undefined && w.metricsPort !== undefined) {
      server = await startMetricsServer({ host: w.metricsHost, port: w.metricsPort, registry: source });
      w.log.write(`flowgauge: Prometheus metrics at ${server.url}${split ? ` (${w.workers} workers' series combined)` : ''}\n`);
    }
    if (source !== undefined && w.pushgateway !== undefined) {
      pusher = createPushgatewayPusher({
        url: w.pushgateway,
        job: 'flowgauge',
        grouping: { instance: hostname(), target: w.targetName, ...(w.shard !== undefined ? { shard: String(w.shard.index + 1) } : {}) },
        registry: source,
        intervalMs: 10_000,
        clock: createSystemClock(),
      });
      pusher.start();
    }
    // Resolved here once, as plain data, so workers export to the same URL under the same resource.
    // A bad endpoint or a missing SDK is bad input; an export that fails later is only a warning.
    if (w.otel !== undefined) otelOptions = await otlpOptionsOf(w.otel, w.env);
    if (otelOptions !== undefined && !split) otlp = await enableOtlpExport(otelOptions, undefined, (m) => w.stderr.write(m));
    if (w.dashboardPort !== undefined) {
      dashboard = await startDashboardServer({ port: w.dashboardPort, page: renderDashboardPage(w.plan.name, await loadHtmlAssets()) });
      w.log.write(`flowgauge: live dashboard at ${dashboard.url}\n`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  const live = dashboard;
  const feed = live === undefined ? undefined : { name: w.plan.name, objective: w.plan.objective, publish: (m: unknown) => live.publish(m) };
  if (feed !== undefined && split) {
    relay = createDashboardRelay(feed);
    relay.start(w.plan.scenarios.map((s) => s.name));
  }
  return {
    local: {
      metrics,
      tracer: otlp === undefined ? undefined : createRequestTracer(otlp.tracer),
      observers: feed === undefined || split ? [] : [createDashboardObserver(feed)],
    },
    workers: {
      exports: {
        ...(aggregate !== undefined ? { metrics: metricsOptions(w) } : {}),
        ...(relay !== undefined ? { dashboard: true } : {}),
        ...(otelOptions !== undefined ? { otel: otelOptions } : {}),
      },
      onSnapshot(worker, s) {
        if (s.metrics !== undefined) aggregate?.update(worker, s.metrics);
        if (s.dashboard !== undefined) relay?.add(s.dashboard);
      },
      tick: (p) => relay?.tick(p),
    },
    dashboard,
    end(report, html) {
      relay?.end(report);
      if (html !== undefined) dashboard?.setReport(html);
    },
    close,
  };
}
