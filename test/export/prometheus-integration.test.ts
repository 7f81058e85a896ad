/**
 * A real Prometheus scrapes a live /metrics fed by a synthetic load, evaluates the generated
 * rules, and answers every recording rule and every dashboard query with data. This proves
 * the names the exporters, rules and dashboards use agree end to end.
 *
 * The feeder (`helpers/feeder.ts`) stands in for a live `flowgauge run --metrics-port`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer, type MetricsServer } from '../../src/export/metrics-server.js';
import { createProbeMetrics } from '../../src/export/probe-metrics.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { generateDashboards, type GrafanaDashboard } from '../../src/slo/grafana-dashboards.js';
import { generatePrometheusRules, renderRulesYaml, type RecordingRule, type SloRuleOptions } from '../../src/slo/prometheus-rules.js';
import { binaryGate } from './helpers/binaries.js';
import { startFeeder, type Feeder } from './helpers/feeder.js';

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

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Grafana's variables replaced by values PromQL accepts. */
function substitute(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__range', '1h')
    .replaceAll('$__interval', '15s')
    .replace(/\$(tier|operation|check)\b/g, '.*');
}

function panelExprs(d: GrafanaDashboard): { title: string; expr: string }[] {
  return (d.panels as { title: string; targets: { expr: string }[] }[]).flatMap((p) => p.targets.map((t) => ({ title: p.title, expr: t.expr })));
}

describe.skipIf(gate.skip)('real Prometheus against the generated rules and dashboards', () => {
  let dir = '';
  let server: MetricsServer | undefined;
  let feeder: Feeder | undefined;
  let prom: ChildProcess | undefined;
  let promLog = '';
  let api = '';

  const query = async (expr: string): Promise<unknown[]> => {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
    if (body.status !== 'success') throw new Error(`query failed: ${expr}: ${body.error ?? res.status}`);
    return body.data?.result ?? [];
  };

  /** Polls until `check` returns true, or fails with `describe()` once the deadline passes. */
  const until = async (check: () => Promise<boolean>, describe: () => string): Promise<void> => {
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      if (prom?.exitCode !== null && prom?.exitCode !== undefined) throw new Error(`prometheus exited ${prom.exitCode}:\n${promLog.slice(-2000)}`);
      try {
        if (await check()) return;
      } catch {
        // not up yet
      }
      if (Date.now() > end) throw new Error(`${describe()}\n--- prometheus log (tail) ---\n${promLog.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    gate.assertPresent();
    dir = mkdtempSync(join(tmpdir(), 'flowgauge-prom-'));
    const registry = new Registry();
    const metrics = createRunMetrics({ registry, scenario: 'integration', tier: 'pro', latencyBucketsS: [2, 0.5] });
    const probes = createProbeMetrics({ registry });
    feeder = startFeeder(metrics, probes, { intervalMs: 50 });
    server = await startMetricsServer({ port: 0, registry });
    writeFileSync(join(dir, 'rules.yml'), renderRulesYaml(generatePrometheusRules(OPTIONS)));
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'rule_files: [rules.yml]',
        'scrape_configs:',
        '  - job_name: flowgauge',
        `    static_configs: [{ targets: ['127.0.0.1:${server.port}'] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prom = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prom.stdout?.on('data', (b: Buffer) => (promLog += b.toString()));
    prom.stderr?.on('data', (b: Buffer) => (promLog += b.toString()));
    await until(
      async () => {
        const res = await fetch(`${api}/api/v1/targets`);
        const body = (await res.json()) as { data: { activeTargets: { health: string }[] } };
        return body.data.activeTargets.some((t) => t.health === 'up');
      },
      () => 'the flowgauge target never came up',
    );
  });

  afterAll(async () => {
    feeder?.stop();
    if (prom !== undefined && prom.exitCode === null) {
      const exited = new Promise((r) => prom?.once('exit', r));
      prom.kill('SIGTERM');
      const timer = setTimeout(() => prom?.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await server?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
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
