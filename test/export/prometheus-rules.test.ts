import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { MULTIWINDOW_ALERTS } from '../../src/slo/budget.js';
import { ALERT_NAMES, RECORDING_RULES, RUN_METRICS } from '../../src/slo/metric-names.js';
import {
  formatPromDuration,
  generatePrometheusRules,
  renderRulesYaml,
  resolveSloRuleOptions,
  thresholdsOutsideDefaultBuckets,
  type AlertingRule,
  type RecordingRule,
} from '../../src/slo/prometheus-rules.js';

const records = (f: ReturnType<typeof generatePrometheusRules>) => f.groups.flatMap((g) => g.rules).filter((r): r is RecordingRule => 'record' in r);
const alerts = (f: ReturnType<typeof generatePrometheusRules>) => f.groups.flatMap((g) => g.rules).filter((r): r is AlertingRule => 'alert' in r);

describe('generatePrometheusRules', () => {
  it('records the SLI error ratio over every window and the period, overall and per tier', () => {
    const f = generatePrometheusRules({ objective: 0.999, period: '30d' });
    const names = records(f).map((r) => r.record);
    for (const w of ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d']) {
      expect(names).toContain(RECORDING_RULES.sliErrorRatio(w));
      expect(names).toContain(RECORDING_RULES.sliErrorRatioByTier(w));
    }
    expect(names).toHaveLength(16);
    const byTier = records(f).find((r) => r.record === RECORDING_RULES.sliErrorRatioByTier('1h'));
    expect(byTier?.expr).toContain(`${RUN_METRICS.sliEvents.name}{sli="bad"}[1h]`);
    expect(byTier?.expr).toContain('sli=~"good|bad"');
    expect(byTier?.expr).not.toContain('excluded');
    expect(byTier?.expr).toContain('sum by (tier)');
  });

  it('alerts on both windows of each row of the burn-rate table, scaled by the budget', () => {
    for (const objective of [0.999, 0.995]) {
      const a = alerts(generatePrometheusRules({ objective, period: '30d' }));
      expect(a).toHaveLength(MULTIWINDOW_ALERTS.length);
      MULTIWINDOW_ALERTS.forEach((row, i) => {
        const rule = a[i] as AlertingRule;
        const t = Number((row.burnRate * (1 - objective)).toPrecision(12));
        expect(rule.alert).toBe(ALERT_NAMES.availability);
        expect(rule.expr).toBe(
          `${RECORDING_RULES.sliErrorRatioByTier(row.long)} > ${t} and ${RECORDING_RULES.sliErrorRatioByTier(row.short)} > ${t}`,
        );
        expect(rule.labels).toMatchObject({ severity: row.severity, long_window: row.long, short_window: row.short });
        expect(rule.annotations.summary).toContain('{{ $labels.tier }}');
      });
    }
    const [page] = alerts(generatePrometheusRules({ objective: 0.999, period: '30d' }));
    expect(page?.expr).toContain('> 0.0144');
  });

  it('adds latency ratios from the bucket whose le is the threshold, and their alerts', () => {
    const f = generatePrometheusRules({
      objective: 0.999,
      period: '28d',
      latencyObjectives: [
        { operation: 'run', thresholdS: 2, objective: 0.99 },
        { operation: 'stream.ttft', thresholdS: 0.5, objective: 0.95 },
      ],
    });
    const lat = records(f).filter((r) => r.record === RECORDING_RULES.latencyErrorRatioByTier('5m'));
    expect(lat.map((r) => r.labels)).toEqual([
      { target: 'run', threshold_seconds: '2' },
      { target: 'stream.ttft', threshold_seconds: '0.5' },
    ]);
    expect(lat[0]?.expr).toContain('flowgauge_request_duration_seconds_bucket{operation="run",le=~"2|2.0"}[5m]');
    expect(lat[0]?.expr).toContain('flowgauge_request_duration_seconds_count{operation="run"}[5m]');
    expect(lat[1]?.expr).toContain('flowgauge_stream_ttft_seconds_bucket{le="0.5"}[5m]');
    expect(records(f).map((r) => r.record)).toContain(RECORDING_RULES.latencyErrorRatio('28d'));
    const la = alerts(f).filter((a) => a.alert === ALERT_NAMES.latency);
    expect(la).toHaveLength(2 * MULTIWINDOW_ALERTS.length);
    expect(la[0]?.expr).toContain('{target="run",threshold_seconds="2"} > 0.144');
    expect(la[4]?.expr).toContain('> 0.72');
  });

  it('does not record the same window twice when the period is one of them', () => {
    const r = resolveSloRuleOptions({ objective: 0.99, period: '72h' });
    expect(r.period).toBe('3d');
    expect(r.windows).toEqual(['5m', '30m', '1h', '2h', '6h', '1d', '3d']);
  });

  it('rejects objectives, periods and targets it cannot use', () => {
    expect(() => generatePrometheusRules({ objective: 99.9, period: '30d' })).toThrow(InvalidArgumentError);
    expect(() => generatePrometheusRules({ objective: 1, period: '30d' })).toThrow(InvalidArgumentError);
    expect(() => generatePrometheusRules({ objective: 0.999, period: 'a month' })).toThrow(/period/);
    expect(() => generatePrometheusRules({ objective: 0.999, period: '10m' })).toThrow(/at least 1h/);
    expect(() =>
      generatePrometheusRules({ objective: 0.999, period: '30d', latencyObjectives: [{ operation: 'teleport', thresholdS: 1, objective: 0.9 }] }),
    ).toThrow(/teleport/);
    expect(() =>
      generatePrometheusRules({
        objective: 0.999,
        period: '30d',
        latencyObjectives: [
          { operation: 'run', thresholdS: 1, objective: 0.9 },
          { operation: 'run', thresholdS: 1, objective: 0.99 },
        ],
      }),
    ).toThrow(/twice/);
  });

  it('names latency thresholds that are not default bucket bounds', () => {
    const r = resolveSloRuleOptions({
      objective: 0.999,
      period: '30d',
      latencyObjectives: [
        { operation: 'run', thresholdS: 2, objective: 0.99 },
        { operation: 'run', thresholdS: 1.7, objective: 0.99 },
      ],
    });
    expect(thresholdsOutsideDefaultBuckets(r.latencyObjectives).map((o) => o.thresholdS)).toEqual([1.7]);
  });

  it('renders YAML that parses back to the same rules, under a header comment', () => {
    const f = generatePrometheusRules({ objective: 0.999, period: '30d', latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    const text = renderRulesYaml(f);
    expect(text.startsWith('# Generated by `flowgauge slo rules`')).toBe(true);
    expect(parse(text)).toEqual(JSON.parse(JSON.stringify(f)));
    // Long expressions stay on one line.
    expect(text.split('\n').filter((l) => l.trim().startsWith('expr:')).length).toBe(records(f).length + alerts(f).length);
  });

  it('formats durations as the shortest exact Prometheus unit', () => {
    expect([30 * 86_400_000, 36 * 3_600_000, 90_000, 1500].map(formatPromDuration)).toEqual(['30d', '36h', '90s', '1500ms']);
  });
});
