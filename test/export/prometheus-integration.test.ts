/**
 * A real Prometheus scrapes a live /metrics fed by a synthetic load, evaluates the generated
 * rules, and answers every recording rule and every dashboard query with data. This proves
 * the names the exporters, rules and dashboards use agree end to end.
 *
 * The feeder (`helpers/feeder.ts`) stands in for a live `flowgauge run --metrics-port`.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer, type MetricsServer } from '../../src/export/metrics-server.js';
import { createProbeMetrics } from '../../src/export/probe-metrics.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { generateDashboards } from '../../src/slo/grafana-dashboards.js';
import { generatePrometheusRules, renderRulesYaml, type RecordingRule, type SloRuleOptions } from '../../src/slo/prometheus-rules.js';
import { binaryGate } from './helpers/binaries.js';
import { startFeeder, type Feeder } from './helpers/feeder.js';
import { panelExprs, startPrometheus, substitute, type TestPrometheus } from './helpers/prometheus.js';

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

describe.skipIf(gate.skip)('real Prometheus against the generated rules and dashboards', () => {
  let server: MetricsServer | undefined;
  let feeder: Feeder | undefined;
  let prom: TestPrometheus | undefined;
  const query = (expr: string): Promise<unknown[]> => (prom as TestPrometheus).query(expr);
  const until = (check: () => Promise<boolean>, describe: () => string): Promise<void> =>
    (prom as TestPrometheus).until(check, describe, DEADLINE_MS);

  beforeAll(async () => {
    gate.assertPresent();
    const registry = new Registry();
    const metrics = createRunMetrics({ registry, scenario: 'integration', tier: 'pro', latencyBucketsS: [2, 0.5] });
    const probes = createProbeMetrics({ registry });
    feeder = startFeeder(metrics, probes, { intervalMs: 50 });
    server = await startMetricsServer({ port: 0, registry });
    prom = await startPrometheus({ targets: [`127.0.0.1:${server.port}`], rulesYaml: renderRulesYaml(generatePrometheusRules(OPTIONS)) });
    await prom.targetUp();
  });

  afterAll(async () => {
    feeder?.stop();
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
    const panels = Object.entries(dashboards).flatMap(([name, d]) => panelExprs(d).map((p) => ({ title: `${name}: ${p.title}`, expr: substitute(p.expr) })));
    // Grafana's label_values() variables: the label must exist on the metric.
    const variables = [
      { title: 'variable tier', expr: 'count by (tier) (flowgauge_requests_total)' },
      { title: 'variable operation', expr: 'count by (operation) (flowgauge_requests_total)' },
      { title: 'variable check', expr: 'count by (check) (flowgauge_probe_total)' },
    ];
    const all = [...recorded, ...panels, ...variables];
    expect(recorded.length).toBe(16 + 2 * 2 * 8);
    expect(panels.length).toBeGreaterThan(30);

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

  it('computes the error ratio the feeder produces and raises the page alert for it', async () => {
    // The feeder's mix is about 4 % bad of good + bad: far above the 0.1 % budget.
    const [sample] = (await query('flowgauge:sli_error_ratio_by_tier:rate5m{tier="pro"}')) as { value: [number, string] }[];
    const ratio = Number(sample?.value[1]);
    expect(ratio).toBeGreaterThan(0.015);
    expect(ratio).toBeLessThan(0.15);
    const alerts = (await query('ALERTS{alertname="FlowgaugeAvailabilityBudgetBurn",long_window="1h"}')) as { metric: Record<string, string> }[];
    expect(alerts.map((a) => a.metric.tier)).toContain('pro');
  });
});
