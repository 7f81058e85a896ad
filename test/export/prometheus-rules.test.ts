import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { MULTIWINDOW_ALERTS } from '../../src/slo/budget.js';
import { ALERT_NAMES, PROBE_METRICS, RECORDING_RULES, RUN_METRICS, SLI_SOURCE } from '../../src/slo/metric-names.js';
import { renderPrometheusRuleYaml, toPrometheusRule } from '../../src/slo/prometheus-rule-resource.js';
import {
  RULE_GROUPS,
  alertingRulesOf,
  formatPromDuration,
  generatePrometheusRules,
  recordingRulesOf,
  renderRulesYaml,
  resolveSloRuleOptions,
  thresholdsOutsideDefaultBuckets,
  type AlertingRule,
} from '../../src/slo/prometheus-rules.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(resolve(ROOT, p), 'utf8');
const DEFAULTS = { objective: 0.999, period: '30d' } as const;
const WINDOWS = ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d'];

describe('generatePrometheusRules: probes and load runs kept apart', () => {
  const f = generatePrometheusRules(DEFAULTS);

  it('records the probe error ratio over every window, per target and per target and check (never across targets), labelled sli_source="probe"', () => {
    const probe = recordingRulesOf(f).filter((r) => r.record.startsWith('flowgauge:probe_'));
    expect(probe.map((r) => r.record)).toEqual(WINDOWS.flatMap((w) => [RECORDING_RULES.probeErrorRatio(w), RECORDING_RULES.probeErrorRatioByCheck(w)]));
    for (const r of probe) {
      expect(r.labels).toEqual({ [SLI_SOURCE.label]: SLI_SOURCE.probe });
      // Good = success; everything else (failure, or any later result) is bad.
      expect(r.expr).toContain(`${PROBE_METRICS.total.name}{result!="success"}`);
      expect(r.expr).not.toContain(RUN_METRICS.sliEvents.name);
    }
    expect(probe.find((r) => r.record === RECORDING_RULES.probeErrorRatioByCheck('1h'))?.expr).toContain('sum by (target, check)');
    expect(probe.find((r) => r.record === RECORDING_RULES.probeErrorRatio('1h'))?.expr).toContain('sum by (target)');
    for (const r of probe) expect(r.expr, r.record).not.toMatch(/sum \(|sum by \(check\)/);
  });

  it('records the load SLI per window, per target and per target and tier (never across targets), labelled sli_source="load", from the load series only', () => {
    const load = recordingRulesOf(f).filter((r) => r.record.startsWith('flowgauge:sli_'));
    expect(load.map((r) => r.record)).toEqual(WINDOWS.flatMap((w) => [RECORDING_RULES.sliErrorRatio(w), RECORDING_RULES.sliErrorRatioByTier(w)]));
    for (const r of load) {
      expect(r.labels).toEqual({ [SLI_SOURCE.label]: SLI_SOURCE.load });
      expect(r.expr).toContain(`${RUN_METRICS.sliEvents.name}{sli="bad"}`);
      expect(r.expr).toContain('sli=~"good|bad"');
      expect(r.expr).not.toContain('excluded');
      expect(r.expr).not.toContain(PROBE_METRICS.total.name);
      // Every aggregation keeps the target: staging's errors are not production's.
      expect(r.expr, r.record).not.toMatch(/sum \(|sum by \(tier\)/);
      expect([...r.expr.matchAll(/sum by \(([^)]*)\)/g)].map((m) => m[1]), r.record).toEqual(
        Array(3).fill(r.record.includes('_by_tier') ? 'target, tier' : 'target'),
      );
    }
  });

  it('alerts only on the probes by default: a load test never pages', () => {
    const alerts = alertingRulesOf(f);
    expect(new Set(alerts.map((a) => a.alert))).toEqual(
      new Set([ALERT_NAMES.uptime, ALERT_NAMES.probeDown, ALERT_NAMES.probeStale, ALERT_NAMES.proberDown, ALERT_NAMES.probeAbsent, ALERT_NAMES.certExpiry, ALERT_NAMES.tlsVersion]),
    );
    for (const a of alerts) {
      expect(a.labels[SLI_SOURCE.label]).toBe(SLI_SOURCE.probe);
      expect(a.expr).not.toContain(RUN_METRICS.sliEvents.name);
      expect(['critical', 'warning']).toContain(a.labels.severity);
    }
    expect(f.groups.map((g) => g.name)).toEqual([RULE_GROUPS.probeRecording, RULE_GROUPS.probeAlerts, RULE_GROUPS.loadRecording]);
  });

  it('burn-rate alerts per check on both windows of each row, critical for the page rows and warning for the ticket rows', () => {
    for (const objective of [0.999, 0.995]) {
      const a = alertingRulesOf(generatePrometheusRules({ objective, period: '30d' })).filter((x) => x.alert === ALERT_NAMES.uptime);
      expect(a).toHaveLength(MULTIWINDOW_ALERTS.length);
      MULTIWINDOW_ALERTS.forEach((row, i) => {
        const rule = a[i] as AlertingRule;
        const t = Number((row.burnRate * (1 - objective)).toPrecision(12));
        expect(rule.expr).toBe(`${RECORDING_RULES.probeErrorRatioByCheck(row.long)} > ${t} and ${RECORDING_RULES.probeErrorRatioByCheck(row.short)} > ${t}`);
        expect(rule.labels).toMatchObject({ severity: row.severity === 'page' ? 'critical' : 'warning', slo: 'uptime', long_window: row.long, short_window: row.short });
        expect(rule.annotations.summary).toContain('on check {{ $labels.check }} of target {{ $labels.target }}');
      });
    }
  });

  it('probe down after the configured time, stale after twice the interval, certificates warned then critical without overlap', () => {
    const a = alertingRulesOf(
      generatePrometheusRules({ ...DEFAULTS, probeInterval: '30s', probeDownFor: '10m', certExpiryWarning: '21d', certExpiryCritical: '7d' }),
    );
    const one = (name: string) => a.filter((x) => x.alert === name);
    expect(one(ALERT_NAMES.probeDown)).toEqual([expect.objectContaining({ expr: `${PROBE_METRICS.success.name} == 0`, for: '10m' })]);
    expect(one(ALERT_NAMES.probeStale)[0]?.expr).toBe(`time() - ${PROBE_METRICS.lastRun.name} > 60`);
    const certs = one(ALERT_NAMES.certExpiry);
    const left = `${PROBE_METRICS.tlsCertExpiry.name} - time()`;
    expect(certs.map((c) => [c.labels.severity, c.expr])).toEqual([
      ['warning', `${left} < ${21 * 86400} and ${left} >= ${7 * 86400}`],
      ['critical', `${left} < ${7 * 86400}`],
    ]);
    const d = alertingRulesOf(generatePrometheusRules(DEFAULTS));
    expect(d.find((x) => x.alert === ALERT_NAMES.probeStale)?.expr).toBe(`time() - ${PROBE_METRICS.lastRun.name} > 120`);
    expect(d.find((x) => x.alert === ALERT_NAMES.probeDown)?.for).toBe('5m');
  });

  it('load alerts on request only, every one at severity info with sli_source="load", latency included', () => {
    const g = generatePrometheusRules({ ...DEFAULTS, loadAlerts: true, latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    expect(g.groups.map((x) => x.name)).toEqual([RULE_GROUPS.probeRecording, RULE_GROUPS.probeAlerts, RULE_GROUPS.loadRecording, RULE_GROUPS.loadAlerts]);
    const load = g.groups[3]?.rules as AlertingRule[];
    expect(load.map((a) => a.alert)).toEqual([...Array(4).fill(ALERT_NAMES.availability), ...Array(4).fill(ALERT_NAMES.latency)]);
    for (const a of load) expect(a.labels).toMatchObject({ severity: 'info', [SLI_SOURCE.label]: SLI_SOURCE.load });
    expect(load[0]?.expr).toBe(`${RECORDING_RULES.sliErrorRatioByTier('1h')} > 0.0144 and ${RECORDING_RULES.sliErrorRatioByTier('5m')} > 0.0144`);
    expect(load[4]?.expr).toContain('{operation="run",threshold_seconds="2"} > 0.144');
    // Alerts fire per target and tier, and say which target burns, as the probe alerts do.
    for (const a of load) expect(a.annotations.summary, a.alert).toMatch(/on tier \{\{ \$labels\.tier \}\} of target \{\{ \$labels\.target \}\}$/);
  });

  it('adds latency ratios from the bucket whose le is the threshold', () => {
    const g = generatePrometheusRules({
      objective: 0.999,
      period: '28d',
      latencyObjectives: [
        { operation: 'run', thresholdS: 2, objective: 0.99 },
        { operation: 'stream.ttft', thresholdS: 0.5, objective: 0.95 },
      ],
    });
    const lat = recordingRulesOf(g).filter((r) => r.record === RECORDING_RULES.latencyErrorRatioByTier('5m'));
    expect(lat.map((r) => r.labels)).toEqual([
      { sli_source: 'load', operation: 'run', threshold_seconds: '2' },
      { sli_source: 'load', operation: 'stream.ttft', threshold_seconds: '0.5' },
    ]);
    // The run's target survives the aggregation: no rule label may overwrite it.
    for (const r of recordingRulesOf(g).filter((x) => x.record.startsWith('flowgauge:latency_'))) {
      expect(r.labels, r.record).not.toHaveProperty('target');
      expect(r.expr, r.record).toMatch(r.record.includes('_by_tier') ? /^1 - \(sum by \(target, tier\) .* \/ sum by \(target, tier\) / : /^1 - \(sum by \(target\) .* \/ sum by \(target\) /);
    }
    expect(lat[0]?.expr).toContain('flowgauge_request_duration_seconds_bucket{operation="run",le=~"2|2.0"}[5m]');
    expect(lat[0]?.expr).toContain('flowgauge_request_duration_seconds_count{operation="run"}[5m]');
    expect(lat[1]?.expr).toContain('flowgauge_stream_ttft_seconds_bucket{le="0.5"}[5m]');
    expect(recordingRulesOf(g).map((r) => r.record)).toContain(RECORDING_RULES.latencyErrorRatio('28d'));
    expect(alertingRulesOf(g).filter((a) => a.alert === ALERT_NAMES.latency)).toEqual([]);
  });

  it('does not record the same window twice when the period is one of them', () => {
    const r = resolveSloRuleOptions({ objective: 0.99, period: '72h' });
    expect(r.period).toBe('3d');
    expect(r.windows).toEqual(['5m', '30m', '1h', '2h', '6h', '1d', '3d']);
  });

  it('rejects objectives, periods, targets and probe options it cannot use, naming what is allowed', () => {
    const bad = (o: Partial<Parameters<typeof generatePrometheusRules>[0]>) => () => generatePrometheusRules({ ...DEFAULTS, ...o });
    expect(bad({ objective: 99.9 })).toThrow(InvalidArgumentError);
    expect(bad({ objective: 1 })).toThrow(InvalidArgumentError);
    expect(bad({ period: 'a month' })).toThrow(/period/);
    expect(bad({ period: '10m' })).toThrow(/at least 1h/);
    expect(bad({ latencyObjectives: [{ operation: 'teleport', thresholdS: 1, objective: 0.9 }] })).toThrow(/teleport/);
    expect(
      bad({
        latencyObjectives: [
          { operation: 'run', thresholdS: 1, objective: 0.9 },
          { operation: 'run', thresholdS: 1, objective: 0.99 },
        ],
      }),
    ).toThrow(/twice/);
    expect(bad({ probeInterval: 'often' })).toThrow(/^probe interval must be a whole duration .* got "often"/);
    expect(bad({ probeInterval: '1500ms' })).toThrow(/probe interval/);
    expect(bad({ probeDownFor: '30s' })).toThrow(/probe down duration .* at least 1m/);
    expect(bad({ certExpiryWarning: '2d', certExpiryCritical: '3d' })).toThrow(/critical \(3d\) must be shorter than the warning \(2d\)/);
    expect(bad({ probeScrapeJob: 'a"} or vector(1) #' })).toThrow(/^probe scrape job must be a Prometheus job name/);
    expect(bad({ probePushJob: 'x y' })).toThrow(/^probe push job/);
  });

  it('watches the prober under the jobs it runs as, and leaves a job alert out when told ""', () => {
    const names = (o: Partial<Parameters<typeof generatePrometheusRules>[0]>) => alertingRulesOf(generatePrometheusRules({ ...DEFAULTS, ...o }));
    const dflt = names({});
    expect(dflt.find((a) => a.alert === ALERT_NAMES.proberDown)?.expr).toBe('up{job="flowgauge-probe"} == 0');
    expect(dflt.find((a) => a.alert === ALERT_NAMES.probeAbsent)?.expr).toMatch(/^absent\(flowgauge_probe_last_run_timestamp_seconds\{job="flowgauge_probe"\}\) and on \(\) count\(max_over_time\(/);
    expect(names({ probeScrapeJob: 'probes' }).find((a) => a.alert === ALERT_NAMES.proberDown)?.expr).toBe('up{job="probes"} == 0');
    const none = names({ probeScrapeJob: '', probePushJob: '' }).map((a) => a.alert);
    expect(none).not.toContain(ALERT_NAMES.proberDown);
    expect(none).not.toContain(ALERT_NAMES.probeAbsent);
    // The dead prober pages; the findings are tickets, with no critical certificate row unless asked.
    for (const a of dflt) {
      if ([ALERT_NAMES.proberDown, ALERT_NAMES.probeAbsent, ALERT_NAMES.probeStale].includes(a.alert as never)) expect(a.labels.severity).toBe('critical');
      if ([ALERT_NAMES.certExpiry, ALERT_NAMES.tlsVersion].includes(a.alert as never)) expect(a.labels.severity).toBe('warning');
    }
  });

  it('names latency thresholds that are not default bucket bounds', () => {
    const r = resolveSloRuleOptions({
      ...DEFAULTS,
      latencyObjectives: [
        { operation: 'run', thresholdS: 2, objective: 0.99 },
        { operation: 'run', thresholdS: 1.7, objective: 0.99 },
      ],
    });
    expect(thresholdsOutsideDefaultBuckets(r.latencyObjectives).map((o) => o.thresholdS)).toEqual([1.7]);
  });

  it('renders YAML that parses back to the same rules, under a header comment', () => {
    const g = generatePrometheusRules({ ...DEFAULTS, latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    const text = renderRulesYaml(g);
    expect(text.startsWith('# Generated by `flowgauge slo rules`')).toBe(true);
    expect(parse(text)).toEqual(JSON.parse(JSON.stringify(g)));
    // Long expressions stay on one line.
    expect(text.split('\n').filter((l) => l.trim().startsWith('expr:')).length).toBe(recordingRulesOf(g).length + alertingRulesOf(g).length);
  });

  it('formats durations as the shortest exact Prometheus unit', () => {
    expect([30 * 86_400_000, 36 * 3_600_000, 90_000, 1500].map(formatPromDuration)).toEqual(['30d', '36h', '90s', '1500ms']);
  });
});

describe('PrometheusRule resource', () => {
  const f = generatePrometheusRules(DEFAULTS);

  it('wraps the same groups in a monitoring.coreos.com/v1 PrometheusRule', () => {
    const res = toPrometheusRule(f, { namespace: 'monitoring', labels: { release: 'kube-prometheus-stack' } });
    expect(res).toEqual({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: {
        name: 'flowgauge-slo',
        namespace: 'monitoring',
        labels: { 'app.kubernetes.io/name': 'flowgauge', 'app.kubernetes.io/component': 'slo-rules', release: 'kube-prometheus-stack' },
      },
      spec: { groups: f.groups },
    });
    const back = parse(renderPrometheusRuleYaml(res)) as { spec: unknown };
    expect(back.spec).toEqual(JSON.parse(JSON.stringify(f)));
  });

  it('refuses names and labels Kubernetes would refuse', () => {
    expect(() => toPrometheusRule(f, { name: 'Flowgauge SLO' })).toThrow(/DNS subdomain/);
    expect(() => toPrometheusRule(f, { namespace: '-x' })).toThrow(InvalidArgumentError);
    expect(() => toPrometheusRule(f, { labels: { 'bad key!': 'x' } })).toThrow(/not a Kubernetes label/);
    expect(() => toPrometheusRule(f, { labels: { ok: 'x'.repeat(64) } })).toThrow(/not a Kubernetes label/);
  });
});

describe('deploy/ rule files', () => {
  it('the PrometheusRule manifest is what `slo rules --format prometheusrule` writes with the defaults', () => {
    expect(
      read('deploy/kubernetes/flowgauge-prometheusrule.yaml'),
      'regenerate with: node bin/flowgauge.mjs slo rules --format prometheusrule --out deploy/kubernetes/flowgauge-prometheusrule.yaml',
    ).toBe(renderPrometheusRuleYaml(toPrometheusRule(generatePrometheusRules(DEFAULTS))));
  });

  it('the load-alerts fixture the promtool tests load is what `slo rules --load-alerts --latency run=2s@99` writes', () => {
    const expected = renderRulesYaml(
      generatePrometheusRules({ ...DEFAULTS, loadAlerts: true, latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] }),
    );
    expect(
      read('deploy/prometheus/tests/flowgauge-slo-load-alerts.rules.yml'),
      'regenerate with: node bin/flowgauge.mjs slo rules --load-alerts --latency run=2s@99 --out deploy/prometheus/tests/flowgauge-slo-load-alerts.rules.yml',
    ).toBe(expected);
  });

  it('every alert and recording rule name of both rule files appears in a promtool test', () => {
    // The load-alerts fixture holds the probe rules too; its test file covers what only it has.
    const cases: [string, string, string | undefined][] = [
      ['deploy/prometheus/rules/flowgauge-slo.rules.yml', 'deploy/prometheus/tests/flowgauge-slo.test.yml', undefined],
      ['deploy/prometheus/tests/flowgauge-slo-load-alerts.rules.yml', 'deploy/prometheus/tests/flowgauge-load-alerts.test.yml', SLI_SOURCE.load],
    ];
    for (const [rulesPath, testPath, source] of cases) {
      const rules = parse(read(rulesPath)) as Parameters<typeof recordingRulesOf>[0];
      const test = read(testPath);
      const alerts = alertingRulesOf(rules).filter((a) => source === undefined || a.labels[SLI_SOURCE.label] === source);
      const records = recordingRulesOf(rules).filter((r) => source === undefined || (r.labels?.[SLI_SOURCE.label] === source && 'operation' in r.labels));
      expect(alerts.length).toBeGreaterThan(0);
      for (const a of alerts) expect(test, `${a.alert} in ${testPath}`).toContain(`alertname: ${a.alert}`);
      // Each recorded series is compared by promtool, window by window.
      for (const r of records) expect(test, `${r.record} in ${testPath}`).toMatch(new RegExp(`labels: ${r.record.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\{`));
      // Every severity and window row of each alert is expected to fire somewhere.
      for (const a of alerts) {
        const row = a.labels.long_window === undefined ? `severity: ${a.labels.severity}` : `long_window: ${a.labels.long_window}`;
        expect(test, `${a.alert} ${row}`).toMatch(new RegExp(row.replace(/: /, ':\\s*"?')));
      }
    }
  });
});
