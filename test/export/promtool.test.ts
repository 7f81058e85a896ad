/**
 * The real promtool judges what flowgauge generates: the exposition lints clean, the rules
 * load (as a rule file and as the spec of the PrometheusRule), the deploy config loads, and the
 * alerts fire and stay quiet as intended (the promtool unit tests in deploy/prometheus/tests).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Registry } from 'prom-client';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProbeMetrics } from '../../src/export/probe-metrics.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { renderPrometheusRuleYaml, toPrometheusRule } from '../../src/slo/prometheus-rule-resource.js';
import { alertingRulesOf, generatePrometheusRules, renderRulesYaml } from '../../src/slo/prometheus-rules.js';
import { binaryGate } from './helpers/binaries.js';
import { sampleBatch } from './helpers/feeder.js';

const ROOT = resolve(import.meta.dirname, '../..');
const gate = binaryGate(['promtool']);

function promtool(args: string[], input?: string) {
  const r = spawnSync('promtool', args, { input, encoding: 'utf8', cwd: ROOT, timeout: 90_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe.skipIf(gate.skip)('promtool', () => {
  let dir = '';
  beforeAll(() => {
    gate.assertPresent();
    dir = mkdtempSync(join(tmpdir(), 'flowgauge-promtool-'));
  });
  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('check metrics accepts the exposition of a realistic run and probes', async () => {
    const registry = new Registry();
    const m = createRunMetrics({ registry, scenario: 'mixed-pro', tier: 'pro', latencyBucketsS: [1.7] });
    const p = createProbeMetrics({ registry, target: 'api.example.com' });
    let x = 1;
    const rand = () => ((x = (x * 16807) % 2147483647) - 1) / 2147483646;
    for (const [s, v] of sampleBatch(rand, 500)) m.observe(s, v);
    m.addDropped(2);
    p.record('run', { success: true, durationS: 0.3, phases: { connect: 0.001, tls: 0.01, ttfb: 0.1, total: 0.2 }, ttftS: 0.15, tlsVersion: 'TLSv1.3' });
    const text = await registry.metrics();
    const r = promtool(['check', 'metrics'], text);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('check metrics is strict enough to fail a badly named metric (the check can fail)', () => {
    const r = promtool(['check', 'metrics'], '# HELP fg_requests Requests.\n# TYPE fg_requests counter\nfg_requests 1\n');
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('_total');
  });

  it('check rules accepts the generated rules, with and without latency objectives and load alerts', () => {
    const plain = join(dir, 'plain.rules.yml');
    const latency = join(dir, 'latency.rules.yml');
    writeFileSync(plain, renderRulesYaml(generatePrometheusRules({ objective: 0.999, period: '30d' })));
    writeFileSync(
      latency,
      renderRulesYaml(
        generatePrometheusRules({
          objective: 0.995,
          period: '28d',
          loadAlerts: true,
          latencyObjectives: [
            { operation: 'run', thresholdS: 2, objective: 0.99 },
            { operation: 'stream.ttft', thresholdS: 0.5, objective: 0.99 },
            { operation: 'stream.itl', thresholdS: 0.05, objective: 0.999 },
          ],
        }),
      ),
    );
    const r = promtool(['check', 'rules', plain, latency]);
    // 16 probe + 16 load records and 10 probe alerts; + 3 × 16 latency records and 4 × 4 load alerts.
    expect(r.output).toContain('SUCCESS: 42 rules found');
    expect(r.output).toContain('SUCCESS: 106 rules found');
    expect(r.status).toBe(0);
  });

  it('check rules accepts spec.groups of the PrometheusRule, exactly the rule file', () => {
    const file = generatePrometheusRules({ objective: 0.999, period: '30d', loadAlerts: true });
    const resource = parse(renderPrometheusRuleYaml(toPrometheusRule(file, { namespace: 'monitoring', labels: { release: 'kube-prometheus-stack' } }))) as {
      apiVersion: string;
      kind: string;
      spec: { groups: unknown[] };
    };
    expect([resource.apiVersion, resource.kind]).toEqual(['monitoring.coreos.com/v1', 'PrometheusRule']);
    const extracted = join(dir, 'from-resource.rules.yml');
    writeFileSync(extracted, stringify({ groups: resource.spec.groups }, { lineWidth: 0 }));
    const r = promtool(['check', 'rules', extracted]);
    expect(r.output).toContain('SUCCESS: 46 rules found');
    expect(r.status).toBe(0);
    const deployed = parse(readFileSync(join(ROOT, 'deploy/kubernetes/flowgauge-prometheusrule.yaml'), 'utf8')) as { spec: { groups: unknown[] } };
    writeFileSync(extracted, stringify({ groups: deployed.spec.groups }, { lineWidth: 0 }));
    expect(promtool(['check', 'rules', extracted]).output).toContain('SUCCESS: 42 rules found');
  });

  it('check config accepts deploy/prometheus/prometheus.yml and the rules it loads', () => {
    const r = promtool(['check', 'config', 'deploy/prometheus/prometheus.yml']);
    expect(r.output).toContain('SUCCESS: 42 rules found');
    expect(r.status).toBe(0);
  });

  it('test rules: the probe alerts (uptime burn rate, down, stale, certificate) fire as intended, and a burning load run pages nobody', () => {
    const r = promtool(['test', 'rules', 'deploy/prometheus/tests/flowgauge-slo.test.yml']);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  }, 120_000);

  it('test rules: load alerts, when asked for, fire every row at severity info, latency included', () => {
    const r = promtool(['test', 'rules', 'deploy/prometheus/tests/flowgauge-load-alerts.test.yml']);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  }, 120_000);

  it('test rules can fail: the same tests against rules generated with other options', () => {
    // The deployed test files hold their expectations by hand; rules with another certificate
    // threshold, stale interval or objective must break them.
    for (const options of [{ certExpiryCritical: '4d', probeInterval: '2m', probeScrapeJob: 'another-job' }]) {
      const sub = join(dir, 'mutant');
      mkdirSync(join(sub, 'rules'), { recursive: true });
      mkdirSync(join(sub, 'tests'), { recursive: true });
      writeFileSync(join(sub, 'rules/flowgauge-slo.rules.yml'), renderRulesYaml(generatePrometheusRules({ objective: 0.999, period: '30d', ...options })));
      writeFileSync(join(sub, 'tests/t.yml'), readFileSync(join(ROOT, 'deploy/prometheus/tests/flowgauge-slo.test.yml'), 'utf8'));
      const r = promtool(['test', 'rules', join(sub, 'tests/t.yml')]);
      expect(r.status, JSON.stringify(options)).not.toBe(0);
      expect(r.output).toContain('FlowgaugeCertificateExpiry');
      expect(r.output).toContain('FlowgaugeProbeStale');
      expect(r.output).toContain('FlowgaugeProberDown');
    }
  }, 120_000);

  it('test rules can fail: load rules summed across targets (as before they kept target) break the two-target case', () => {
    // The load-alerts fixture with every load aggregation dropping `target` again, and the latency
    // objective named `target` as it was: production's volume hides staging's burn.
    const fixture = readFileSync(join(ROOT, 'deploy/prometheus/tests/flowgauge-slo-load-alerts.rules.yml'), 'utf8');
    const summed = fixture
      .replace(/sum by \(target, tier\) \(rate\((flowgauge_(?:sli_events_total|request_duration_seconds))/g, 'sum by (tier) (rate($1')
      .replace(/sum by \(target\) \(rate\((flowgauge_(?:sli_events_total|request_duration_seconds))/g, 'sum (rate($1')
      .replaceAll('operation: run', 'target: run')
      .replaceAll('operation="run",threshold_seconds', 'target="run",threshold_seconds');
    expect(summed).not.toBe(fixture);
    const sub = join(dir, 'summed');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'flowgauge-slo-load-alerts.rules.yml'), summed);
    writeFileSync(join(sub, 't.yml'), readFileSync(join(ROOT, 'deploy/prometheus/tests/flowgauge-load-alerts.test.yml'), 'utf8'));
    expect(promtool(['check', 'rules', join(sub, 'flowgauge-slo-load-alerts.rules.yml')]).status).toBe(0);
    const r = promtool(['test', 'rules', join(sub, 't.yml')]);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('name: two targets in one Prometheus');
    // Summed, the burning staging run fires no availability alert at all.
    expect(r.output).toMatch(/alertname: FlowgaugeAvailabilityBudgetBurn, time: 40m, \n\s+exp:\[[^\]]*target="staging"[^\]]*\],\s*got:\[\]/);
  }, 120_000);

  it('test rules: a generated latency objective reads the threshold bucket in either le spelling (the probe alerts stay quiet)', () => {
    const rules = generatePrometheusRules({ objective: 0.999, period: '30d', loadAlerts: true, latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    writeFileSync(join(dir, 'lat.rules.yml'), renderRulesYaml(rules));
    const latencyAlerts = alertingRulesOf(rules).filter((a) => a.labels.slo === 'latency');
    const exp = (longs: string[]) =>
      longs.map((l) => {
        const a = latencyAlerts.find((x) => x.labels.long_window === l);
        if (a === undefined) throw new Error(`no latency alert for ${l}`);
        return {
          exp_labels: { target: 'staging', tier: 'pro', ...a.labels },
          exp_annotations: Object.fromEntries(
            Object.entries(a.annotations).map(([k, v]) => [k, v.replace('{{ $labels.tier }}', 'pro').replace('{{ $labels.target }}', 'staging')]),
          ),
        };
      });
    // 1000 requests a minute, `slowPerMin` of them slower than 2 s; `le` spelled as `le2`.
    const input = (slowPerMin: number, le2: string) => [
      { series: `flowgauge_request_duration_seconds_bucket{target="staging",tier="pro",operation="run",le="1"}`, values: `0+${900 - slowPerMin}x120` },
      { series: `flowgauge_request_duration_seconds_bucket{target="staging",tier="pro",operation="run",le="${le2}"}`, values: `0+${1000 - slowPerMin}x120` },
      { series: `flowgauge_request_duration_seconds_bucket{target="staging",tier="pro",operation="run",le="+Inf"}`, values: '0+1000x120' },
      { series: `flowgauge_request_duration_seconds_count{target="staging",tier="pro",operation="run"}`, values: '0+1000x120' },
    ];
    const quietProbes = { eval_time: '40m', alertname: 'FlowgaugeUptimeBudgetBurn', exp_alerts: [] };
    const test = {
      rule_files: ['lat.rules.yml'],
      evaluation_interval: '1m',
      tests: [
        // 20 % slow = burn 20 against a 1 % budget: every alert.
        {
          interval: '1m',
          input_series: input(200, '2'),
          alert_rule_test: [{ eval_time: '40m', alertname: 'FlowgaugeLatencyBudgetBurn', exp_alerts: exp(['1h', '6h', '1d', '3d']) }, quietProbes],
        },
        // 5 % slow = burn 5: the 1d and 3d rows only; Prometheus 3 spells the bound "2.0".
        { interval: '1m', input_series: input(50, '2.0'), alert_rule_test: [{ eval_time: '40m', alertname: 'FlowgaugeLatencyBudgetBurn', exp_alerts: exp(['1d', '3d']) }] },
        // 0.5 % slow: within budget.
        { interval: '1m', input_series: input(5, '2'), alert_rule_test: [{ eval_time: '40m', alertname: 'FlowgaugeLatencyBudgetBurn', exp_alerts: [] }] },
      ],
    };
    writeFileSync(join(dir, 'lat.test.yml'), stringify(test, { lineWidth: 0 }));
    const r = promtool(['test', 'rules', join(dir, 'lat.test.yml')]);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  }, 120_000);
});
