/**
 * The uptime dashboard: the probes' success, time-based uptime, error budget, duration by
 * phase, how long ago each check last ran (a stopped prober), and the days its certificate has
 * left. Failed probes are marked as annotations.
 */
import { q, rate, type AnnotationSpec, type DashboardSpec } from './dashboard-kit.js';
import { PROBE_METRICS, RECORDING_RULES } from './metric-names.js';
import { formatNumber, type ResolvedSloRuleOptions } from './rule-options.js';

/** Marks the steps where every probe of a check was failing. */
export function probeFailureAnnotation(): AnnotationSpec {
  return {
    name: 'Probe failures',
    expr: `1 - max by (check) (${PROBE_METRICS.success.name}{check=~"$check"}) > 0`,
    title: 'probe {{check}} failing',
    tagKeys: 'check',
    color: 'rgba(242, 73, 92, 0.5)',
  };
}

/** The uptime dashboard's description. */
export function uptimeDashboardSpec(r: ResolvedSloRuleOptions): DashboardSpec {
  const p = PROBE_METRICS;
  const c = 'check=~"$check"';
  const b = formatNumber(r.budget);
  const daysLeft = `min by (check) ((${p.tlsCertExpiry.name}{${c}} - time()) / 86400)`;
  const days = (s: number): number => Number((s / 86400).toFixed(3));
  const certSteps: [number | null, string][] = [
    [null, 'red'],
    [days(r.certExpiryCriticalS), 'orange'],
    [days(r.certExpiryWarningS), 'green'],
  ];
  return {
    uid: 'flowgauge-uptime',
    title: 'flowgauge — uptime probes',
    description: 'Scheduled probes of the service: success, time-based uptime, error budget, duration by phase, probe freshness and certificate expiry.',
    variables: [{ name: 'check', label: 'Check', metric: p.total.name }],
    annotations: [probeFailureAnnotation()],
    panels: [
      { title: 'Probes up now', type: 'stat', w: 6, thresholds: [[null, 'red'], [1, 'green']], queries: [q(`min(${p.success.name}{${c}})`)] },
      {
        title: 'Uptime, time-based (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [r.objective, 'green']],
        queries: [q(`avg(avg_over_time(${p.success.name}{${c}}[$__range]))`)],
      },
      {
        title: 'Probe success ratio (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [r.objective, 'green']],
        queries: [q(`sum(increase(${p.total.name}{${c},result="success"}[$__range])) / sum(increase(${p.total.name}{${c}}[$__range]))`)],
      },
      {
        title: `Error budget remaining (${r.period})`,
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.25, 'orange'], [0.5, 'green']],
        queries: [q(`1 - (${RECORDING_RULES.probeErrorRatioByCheck(r.period)}{${c}} / ${b})`, '{{check}}')],
      },
      {
        title: 'Certificate days left',
        type: 'stat',
        w: 8,
        unit: 'd',
        description: `Days until the leaf certificate the last probe was served expires. Alerts below ${days(r.certExpiryWarningS)} days (warning) and ${days(r.certExpiryCriticalS)} (critical).`,
        thresholds: certSteps,
        queries: [q(daysLeft, '{{check}}')],
      },
      {
        title: 'Last probe (age)',
        type: 'stat',
        w: 8,
        unit: 's',
        description: `Seconds since each check's last probe finished; stale (alert) after ${2 * r.probeIntervalS} s, twice the probe interval.`,
        thresholds: [[null, 'green'], [2 * r.probeIntervalS, 'red']],
        queries: [q(`time() - max by (check) (${p.lastRun.name}{${c}})`, '{{check}}')],
      },
      { title: 'TLS version', type: 'table', w: 8, h: 4, queries: [{ expr: `${p.tlsVersion.name}{${c}}`, instant: true }] },
      { title: 'Probe success by check', type: 'timeseries', min: 0, max: 1, queries: [q(`${p.success.name}{${c}}`, '{{check}}')] },
      { title: 'Probe results', type: 'timeseries', unit: 'ops', queries: [q(`sum by (result) (${rate(`${p.total.name}{${c}}`)})`, '{{result}}')] },
      {
        title: 'Probe duration by phase (p90)',
        type: 'timeseries',
        unit: 's',
        queries: [q(`histogram_quantile(0.9, sum by (le, phase) (${rate(`${p.duration.name}_bucket{${c}}`)}))`, '{{phase}}')],
      },
      {
        title: 'Failed probes by check (time range)',
        type: 'timeseries',
        queries: [q(`sum by (check) (increase(${p.total.name}{${c},result!="success"}[$__range]))`, '{{check}}')],
      },
      {
        title: 'Certificate days left over time',
        type: 'timeseries',
        unit: 'd',
        thresholds: certSteps,
        queries: [q(daysLeft, '{{check}}')],
      },
      {
        title: 'Uptime burn rate (1h and 5m)',
        type: 'timeseries',
        description: 'The windows of the fastest burn-rate alert: both above 14.4 pages.',
        thresholds: [[null, 'green'], [1, 'yellow'], [14.4, 'red']],
        queries: ['1h', '5m'].map((w) => q(`${RECORDING_RULES.probeErrorRatioByCheck(w)}{${c}} / ${b}`, `{{check}} ${w}`)),
      },
    ],
  };
}
