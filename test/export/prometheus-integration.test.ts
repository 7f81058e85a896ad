/**
 * A real Prometheus scrapes a live /metrics fed by a synthetic load and probes, evaluates the
 * generated rules, and answers every recording rule and every dashboard query (panels,
 * annotations, variables) with data. This proves the names the exporters, rules and dashboards
 * use agree end to end, and that the probes page while the load run beside them does not.
 *
 * The feeder (`helpers/feeder.ts`) stands in for a live `flowgauge run --metrics-port` and a
 * probe daemon; this file adds journey iterations and checks, and the probe's last-run and
 * certificate gauges.
 */
import { Gauge, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer, type MetricsServer } from '../../src/export/metrics-server.js';
import { createProbeMetrics } from '../../src/export/probe-metrics.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { generateDashboards } from '../../src/slo/grafana-dashboards.js';
import { PROBE_METRICS, SLI_SOURCE, type MetricSpec } from '../../src/slo/metric-names.js';
import { generatePrometheusRules, renderRulesYaml, type RecordingRule, type SloRuleOptions } from '../../src/slo/prometheus-rules.js';
import { binaryGate } from './helpers/binaries.js';
import { startFeeder, type Feeder } from './helpers/feeder.js';
import { annotationExprs, panelExprs, startPrometheus, substitute, variableExprs, type TestPrometheus } from './helpers/prometheus.js';

const gate = binaryGate(['prometheus']);
const OPTIONS: SloRuleOptions = {
  objective: 0.999,
  period: '30d',
  latencyObjectives: [
    { operation: 'run', thresholdS: 2, objective: 0.99 },
    { operation: 'stream.ttft', thresholdS: 0.5, objective: 0.99 },
  ],
};
const DEADLINE_MS = 25_000;

/** The registry's gauge of `spec`, created when the probe exporter does not make it itself. */
function gaugeOf(registry: Registry, spec: MetricSpec): Gauge {
  const existing = registry.getSingleMetric(spec.name);
  return existing instanceof Gauge ? existing : new Gauge({ name: spec.name, help: spec.help, labelNames: [...spec.labelNames], registers: [registry] });
}

describe.skipIf(gate.skip)('real Prometheus against the generated rules and dashboards', () => {
  let server: MetricsServer | undefined;
  let feeder: Feeder | undefined;
  let prom: TestPrometheus | undefined;
  let journey: ReturnType<typeof setInterval> | undefined;
  const query = (expr: string): Promise<unknown[]> => (prom as TestPrometheus).query(expr);
  const until = (check: () => Promise<boolean>, describe: () => string): Promise<void> =>
    (prom as TestPrometheus).until(check, describe, DEADLINE_MS);

  beforeAll(async () => {
    gate.assertPresent();
    const registry = new Registry();
    const metrics = createRunMetrics({ registry, scenario: 'integration', tier: 'pro', latencyBucketsS: [2, 0.5] });
    const probes = createProbeMetrics({ registry, target: 'api.example.com' });
    feeder = startFeeder(metrics, probes, { intervalMs: 50 });
    const lastRun = gaugeOf(registry, PROBE_METRICS.lastRun);
    const lastSuccess = gaugeOf(registry, PROBE_METRICS.lastSuccess);
    const certExpiry = gaugeOf(registry, PROBE_METRICS.tlsCertExpiry);
    let tick = 0;
    journey = setInterval(() => {
      tick++;
      metrics.observeIteration?.('integration', tick % 10 === 0 ? 'failed' : 'completed');
      metrics.observeCheck?.('integration', 'history holds every turn', tick % 7 !== 0);
      for (const check of ['run', 'stream']) {
        const target = 'api.example.com';
        lastRun.set({ target, check }, Date.now() / 1000);
        lastSuccess.set({ target, check }, Date.now() / 1000 - 1);
        // 10 days left: inside the 14-day warning.
        certExpiry.set({ target, check }, Date.now() / 1000 + 10 * 86_400);
      }
    }, 50);
    journey.unref();
    server = await startMetricsServer({ port: 0, registry });
    prom = await startPrometheus({ targets: [`127.0.0.1:${server.port}`], rulesYaml: renderRulesYaml(generatePrometheusRules(OPTIONS)) });
    await prom.targetUp();
  });

  afterAll(async () => {
    feeder?.stop();
    clearInterval(journey);
    await prom?.stop();
    await server?.close();
  });

  it('answers every recording rule and every dashboard query with data', async () => {
    const rules = generatePrometheusRules(OPTIONS);
    const recorded = rules.groups
      .flatMap((g) => g.rules)
      .filter((r): r is RecordingRule => 'record' in r)
      .map((r) => ({
        title: `record ${r.record}`,
        expr: r.labels === undefined ? r.record : `${r.record}{${Object.entries(r.labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`,
      }));
    const dashboards = generateDashboards(OPTIONS);
    const queries = Object.entries(dashboards).flatMap(([name, d]) => [
      ...panelExprs(d).map((p) => ({ title: `${name}: ${p.title}`, expr: substitute(p.expr) })),
      // Grafana runs annotation queries over the dashboard's time range: any point in it counts.
      ...annotationExprs(d).map((a) => ({ title: `${name}: ${a.title}`, expr: substitute(`max_over_time((${a.expr})[5m:1s])`) })),
      // Grafana's label_values() variables: the label must exist on the metric. shard exists only
      // on series a sharded run pushes to a Pushgateway; these are scraped.
      ...variableExprs(d)
        .filter((v) => v.name !== 'shard')
        .map((v) => ({ title: `${name}: ${v.title}`, expr: substitute(v.expr) })),
    ]);
    const all = [...recorded, ...queries];
    expect(recorded.length).toBe(16 + 16 + 2 * 2 * 8);
    expect(queries.length).toBeGreaterThan(60);

    let empty: string[] = [];
    await until(
      async () => {
        empty = [];
        for (const q of all) if ((await query(q.expr)).length === 0) empty.push(`${q.title}: ${q.expr}`);
        return empty.length === 0;
      },
      () => `${empty.length} of ${all.length} queries returned no data:\n  ${empty.join('\n  ')}`,
    );
    expect(empty).toEqual([]);
  });

  it('computes the probe and load error ratios, pages for the probes and for nothing else', async () => {
    // The feeder fails about 5 % of the probes and about 4 % of the load's good + bad events: both
    // far above the 0.1 % budget. Only the probes' uptime may page.
    // Polled: right after the first test the 5m windows may still hold only a few seconds of data.
    let probe = NaN;
    let ratio = NaN;
    const value = async (expr: string): Promise<number> => Number(((await query(expr)) as { value: [number, string] }[])[0]?.value[1]);
    await until(
      async () => {
        probe = await value(`flowgauge:probe_error_ratio_by_check:rate5m{check="run",${SLI_SOURCE.label}="${SLI_SOURCE.probe}"}`);
        ratio = await value(`flowgauge:sli_error_ratio_by_tier:rate5m{tier="pro",${SLI_SOURCE.label}="${SLI_SOURCE.load}"}`);
        return probe > 0.015 && ratio > 0.015 && ratio < 0.15;
      },
      () => `probe error ratio ${probe}, load error ratio ${ratio}: expected both about 5 %`,
    );
    let alerts: { metric: Record<string, string> }[] = [];
    await until(
      async () => {
        alerts = (await query('ALERTS')) as { metric: Record<string, string> }[];
        const names = new Set(alerts.map((a) => a.metric.alertname));
        // Both checks' burn alerts: one may come a rule evaluation after the other.
        const burning = new Set(alerts.filter((a) => a.metric.alertname === 'FlowgaugeUptimeBudgetBurn' && a.metric.long_window === '1h').map((a) => a.metric.check));
        return burning.has('run') && burning.has('stream') && names.has('FlowgaugeCertificateExpiry');
      },
      () => `alerts: ${JSON.stringify(alerts.map((a) => a.metric))}`,
    );
    const burn = alerts.filter((a) => a.metric.alertname === 'FlowgaugeUptimeBudgetBurn' && a.metric.long_window === '1h');
    expect(burn.map((a) => a.metric.check).sort()).toEqual(['run', 'stream']);
    const cert = alerts.filter((a) => a.metric.alertname === 'FlowgaugeCertificateExpiry');
    expect(cert.map((a) => [a.metric.check, a.metric.severity]).sort()).toEqual([
      ['run', 'warning'],
      ['stream', 'warning'],
    ]);
    for (const a of alerts) expect(a.metric[SLI_SOURCE.label], JSON.stringify(a.metric)).toBe(SLI_SOURCE.probe);
    expect(alerts.filter((a) => a.metric.alertname === 'FlowgaugeProbeStale')).toEqual([]);
  });
});
