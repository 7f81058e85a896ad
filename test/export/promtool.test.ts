/**
 * The real promtool judges what flowgauge generates: the exposition lints clean, the rules
 * load, the deploy config loads, and the burn-rate alerts fire and stay quiet as intended.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Registry } from 'prom-client';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProbeMetrics } from '../../src/export/probe-metrics.js';
import { createRunMetrics } from '../../src/export/run-metrics.js';
import { generatePrometheusRules, renderRulesYaml, type AlertingRule } from '../../src/slo/prometheus-rules.js';
import { binaryGate } from './helpers/binaries.js';
import { sampleBatch } from './helpers/feeder.js';

const ROOT = resolve(import.meta.dirname, '../..');
const gate = binaryGate(['promtool']);

function promtool(args: string[], input?: string) {
  const r = spawnSync('promtool', args, { input, encoding: 'utf8', cwd: ROOT, timeout: 20_000 });
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
    const p = createProbeMetrics({ registry });
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

  it('check rules accepts the generated rules, with and without latency objectives', () => {
    const plain = join(dir, 'plain.rules.yml');
    const latency = join(dir, 'latency.rules.yml');
    writeFileSync(plain, renderRulesYaml(generatePrometheusRules({ objective: 0.999, period: '30d' })));
    writeFileSync(
      latency,
      renderRulesYaml(
        generatePrometheusRules({
          objective: 0.995,
          period: '28d',
          latencyObjectives: [
            { operation: 'run', thresholdS: 2, objective: 0.99 },
            { operation: 'stream.ttft', thresholdS: 0.5, objective: 0.99 },
            { operation: 'stream.itl', thresholdS: 0.05, objective: 0.999 },
          ],
        }),
      ),
    );
    const r = promtool(['check', 'rules', plain, latency]);
    expect(r.output).toContain('SUCCESS: 20 rules found');
    expect(r.output).toContain('SUCCESS: 80 rules found');
    expect(r.status).toBe(0);
  });

  it('check config accepts deploy/prometheus/prometheus.yml and the rules it loads', () => {
    const r = promtool(['check', 'config', 'deploy/prometheus/prometheus.yml']);
    expect(r.output).toContain('SUCCESS: 20 rules found');
    expect(r.status).toBe(0);
  });

  it('test rules: every availability alert fires on its burn rate and stays quiet within budget', () => {
    const r = promtool(['test', 'rules', 'deploy/prometheus/tests/flowgauge-slo.test.yml']);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('test rules: latency alerts read the threshold bucket, in either le spelling', () => {
    const rules = generatePrometheusRules({ objective: 0.999, period: '30d', latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    writeFileSync(join(dir, 'lat.rules.yml'), renderRulesYaml(rules));
    const latencyAlerts = rules.groups[1]?.rules.filter((a): a is AlertingRule => 'alert' in a && a.labels.slo === 'latency') ?? [];
    const exp = (longs: string[]) =>
      longs.map((l) => {
        const a = latencyAlerts.find((x) => x.labels.long_window === l) as AlertingRule;
        return {
          exp_labels: { tier: 'pro', ...a.labels },
          exp_annotations: Object.fromEntries(Object.entries(a.annotations).map(([k, v]) => [k, v.replace('{{ $labels.tier }}', 'pro')])),
        };
      });
    // 1000 requests a minute, `slowPerMin` of them slower than 2 s; `le` spelled as `le2`.
    const input = (slowPerMin: number, le2: string) => [
      { series: `flowgauge_request_duration_seconds_bucket{tier="pro",operation="run",le="1"}`, values: `0+${900 - slowPerMin}x120` },
      { series: `flowgauge_request_duration_seconds_bucket{tier="pro",operation="run",le="${le2}"}`, values: `0+${1000 - slowPerMin}x120` },
      { series: `flowgauge_request_duration_seconds_bucket{tier="pro",operation="run",le="+Inf"}`, values: '0+1000x120' },
      { series: `flowgauge_request_duration_seconds_count{tier="pro",operation="run"}`, values: '0+1000x120' },
    ];
    const test = {
      rule_files: ['lat.rules.yml'],
      evaluation_interval: '1m',
      tests: [
        // 20 % slow = burn 20 against a 1 % budget: every alert.
        { interval: '1m', input_series: input(200, '2'), alert_rule_test: [{ eval_time: '40m', alertname: 'FlowgaugeLatencyBudgetBurn', exp_alerts: exp(['1h', '6h', '1d', '3d']) }] },
        // 5 % slow = burn 5: tickets only; Prometheus 3 spells the bound "2.0".
        { interval: '1m', input_series: input(50, '2.0'), alert_rule_test: [{ eval_time: '40m', alertname: 'FlowgaugeLatencyBudgetBurn', exp_alerts: exp(['1d', '3d']) }] },
        // 0.5 % slow: within budget.
        { interval: '1m', input_series: input(5, '2'), alert_rule_test: [{ eval_time: '40m', alertname: 'FlowgaugeLatencyBudgetBurn', exp_alerts: [] }] },
      ],
    };
    writeFileSync(join(dir, 'lat.test.yml'), stringify(test, { lineWidth: 0 }));
    const r = promtool(['test', 'rules', join(dir, 'lat.test.yml')]);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });
});
