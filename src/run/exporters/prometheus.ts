/**
 * Prometheus: the run's registry (never the global one), served at `/metrics` and/or pushed to
 * a Pushgateway every 10 s and at the end. Latency thresholds become histogram bucket bounds, so
 * Prometheus judges them exactly. Over worker threads each worker keeps its own registry and
 * sends it whole with its progress; the main thread serves and pushes them combined
 * (`createMetricsAggregate`, prom-client's `AggregatorRegistry`).
 */
import { hostname } from 'node:os';
import { createSystemClock } from '../../core/clock.js';
import { createMetricsAggregate } from '../../export/metrics-aggregate.js';
import { createPushgatewayPusher, DEFAULT_FINAL_PUSH_TIMEOUT_MS } from '../../export/pushgateway.js';
import { createRunMetrics } from '../../export/run-metrics.js';
import { startMetricsServer } from '../../export/metrics-server.js';
import type { MetricsServer, MetricsSnapshot, MetricsSource, PushgatewayPusher, RunMetricsOptions } from '../../export/index.js';
import type { ResolvedRunPlan } from '../../scenario/index.js';
import { createMetricsOutput } from '../outputs/metrics-output.js';
import { parsePlanThresholds } from '../plan-thresholds.js';
import type { Exporter, ExporterContext } from './exporter.js';

/** Where the metrics go: a `/metrics` server, a Pushgateway, or both. */
export interface PrometheusWish {
  /** Serve `/metrics` on this port (0 picks a free one). */
  readonly port?: number | undefined;
  /** The address it listens on (default 127.0.0.1). */
  readonly host?: string | undefined;
  /** Push to this Pushgateway (job flowgauge, grouped by instance, target and shard). */
  readonly pushgateway?: string | undefined;
}

const tierLabel = (t: ResolvedRunPlan['scenarios'][number]['tier']): string => (typeof t === 'string' ? t : 'custom');

function metricsOptions(plan: ResolvedRunPlan, targetName: string | undefined): Omit<RunMetricsOptions, 'registry'> {
  const first = plan.scenarios[0];
  return {
    scenario: plan.name,
    // The registry's default label: every series, a worker's snapshots too, says which target it measured.
    ...(targetName !== undefined ? { target: targetName } : {}),
    tier: plan.scenarios.length > 1 || first === undefined ? 'mixed' : tierLabel(first.tier),
    // Latency thresholds become bucket bounds, so Prometheus can judge them exactly.
    latencyBucketsS: parsePlanThresholds(plan).all.filter((t) => t.unit === 'ms').map((t) => t.value / 1000),
    // Several scenarios: each sample under its own scenario and tier.
    ...(plan.scenarios.length > 1 ? { scenarios: Object.fromEntries(plan.scenarios.map((x) => [x.name, tierLabel(x.tier)])) } : {}),
  };
}

async function serve(source: MetricsSource, wish: PrometheusWish, ctx: ExporterContext): Promise<{ server?: MetricsServer; pusher?: PushgatewayPusher }> {
  let server: MetricsServer | undefined;
  if (wish.port !== undefined) {
    server = await startMetricsServer({ host: wish.host ?? '127.0.0.1', port: wish.port, registry: source });
    ctx.log.write(`flowgauge: Prometheus metrics at ${server.url}${ctx.workers > 1 ? ` (${ctx.workers} workers' series combined)` : ''}\n`);
  }
  let pusher: PushgatewayPusher | undefined;
  if (wish.pushgateway !== undefined) {
    pusher = createPushgatewayPusher({
      url: wish.pushgateway,
      job: 'flowgauge',
      grouping: { instance: hostname(), ...(ctx.targetName !== undefined ? { target: ctx.targetName } : {}), ...(ctx.shard !== undefined ? { shard: String(ctx.shard.index + 1) } : {}) },
      registry: source,
      intervalMs: 10_000,
      clock: createSystemClock(),
    });
    pusher.start();
  }
  return { ...(server !== undefined ? { server } : {}), ...(pusher !== undefined ? { pusher } : {}) };
}

/** The Prometheus exporter. */
export const prometheusExporter: Exporter<'prometheus', PrometheusWish> = {
  name: 'prometheus',
  async start(wish, ctx) {
    const split = ctx.workers > 1;
    const metrics = split ? undefined : createRunMetrics(metricsOptions(ctx.plan, ctx.targetName));
    const aggregate = split ? createMetricsAggregate() : undefined;
    // The receiver's own counters join the run's registry (one thread only: notifications need it).
    if (metrics !== undefined) ctx.notifications?.attachMetrics(metrics);
    const { server, pusher } = await serve(metrics?.registry ?? (aggregate as NonNullable<typeof aggregate>).source, wish, ctx);
    return {
      output: metrics === undefined ? undefined : createMetricsOutput(metrics),
      brief: split ? metricsOptions(ctx.plan, ctx.targetName) : undefined,
      collect: (worker, snapshot) => aggregate?.update(worker, snapshot as MetricsSnapshot),
      // The merged report settled the workers' 429s on their merged evidence: the combined series follow it.
      end: (report) => aggregate?.settle(report),
      async close() {
        // One bounded attempt (DEFAULT_FINAL_PUSH_TIMEOUT_MS), then one warning naming what was not delivered.
        const pushed = await pusher?.stop();
        if (pushed !== undefined && !pushed.ok && pusher !== undefined) {
          const why = pushed.error === 'TIMEOUT' ? `no answer within ${DEFAULT_FINAL_PUSH_TIMEOUT_MS / 1000} s` : (pushed.error ?? `HTTP ${pushed.status}`);
          ctx.warn.write(`flowgauge: warning: the run's final metrics were not delivered to ${pusher.shownUrl} (${why}); the report has every figure\n`);
        }
        if (server !== undefined) {
          await server.close();
          ctx.log.write(`flowgauge: Prometheus metrics at ${server.url} closed (the run ended)\n`);
        }
      },
    };
  },
  async inWorker(brief) {
    const metrics = createRunMetrics(brief as Omit<RunMetricsOptions, 'registry'>);
    return {
      output: createMetricsOutput(metrics),
      // Its whole registry so far (counters are totals, so the latest replaces the earlier).
      snapshot: async () => (await metrics.registry.getMetricsAsJSON()) as MetricsSnapshot,
    };
  },
};
