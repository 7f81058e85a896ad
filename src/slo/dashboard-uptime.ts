/**
 * The uptime dashboard: the probes' success, time-based uptime, error budget, duration by
 * phase, how long ago each check last ran (a stopped prober) and last succeeded, and the days
 * its certificate has left, for the targets chosen (a `target` variable: staging and production
 * in one Prometheus, never summed). Failed probes are marked as annotations.
 */
import { q, rate, type AnnotationSpec, type DashboardSpec } from './dashboard-kit.js';
import { PROBE_METRICS, RECORDING_RULES } from './metric-names.js';
import { formatNumber, type ResolvedSloRuleOptions } from './rule-options.js';

/** Marks the steps where every probe of a check was failing. */
export function probeFailureAnnotation(): AnnotationSpec {
  return {
    name: 'Probe failures',
    expr: `1 - max by (target, check) (${PROBE_METRICS.success.name}{target=~"$target",check=~"$check"}) > 0`,
    title: 'probe {{check}} of {{target}} failing',
    tagKeys: 'target,check',
    color: 'rgba(242, 73, 92, 0.5)',
  };
}

/** The uptime dashboard's description. */
export function uptimeDashboardSpec(r: ResolvedSloRuleOptions): DashboardSpec {
  const p = PROBE_METRICS;
  const c = 'target=~"$target",check=~"$check"';
  const b = formatNumber(r.budget);
  const daysLeft = `min by (target, check) ((${p.tlsCertExpiry.name}{${c}} - time()) / 86400)`;
  const days = (s: number): number => Number((s / 86400).toFixed(3));
  // Red once expired (or under the critical threshold, when there is one), orange under the warning.
  const certSteps: [number | null, string][] = [
    [null, 'red'],
    [days(r.certExpiryCriticalS ?? 0), 'orange'],
    [days(r.certExpiryWarningS), 'green'],
  ];
  const tc = '{{target}} {{check}}';
  return {
    uid: 'flowgauge-uptime',
    title: 'flowgauge — uptime probes',
    description: 'Scheduled probes of the service: success, time-based uptime, error budget, duration by phase, probe freshness and certificate expiry.',
    variables: [
      { name: 'target', label: 'Target', metric: p.total.name },
      { name: 'check', label: 'Check', metric: `${p.total.name}{target=~"$target"}` },
    ],
    annotations: [probeFailureAnnotation()],
    panels: [
      { title: 'Probes up now', type: 'stat', w: 6, thresholds: [[null, 'red'], [1, 'green']], queries: [q(`min by (target) (${p.success.name}{${c}})`, '{{target}}')] },
      {
        title: 'Uptime, time-based (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [r.objective, 'green']],
        queries: [q(`avg by (target) (avg_over_time(${p.success.name}{${c}}[$__range]))`, '{{target}}')],
      },
      {
        title: 'Probe success ratio (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [r.objective, 'green']],
        queries: [q(`sum by (target) (increase(${p.total.name}{${c},result="success"}[$__range])) / sum by (target) (increase(${p.total.name}{${c}}[$__range]))`, '{{target}}')],
      },
      {
        title: `Error budget remaining (${r.period})`,
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.25, 'orange'], [0.5, 'green']],
        queries: [q(`1 - (${RECORDING_RULES.probeErrorRatioByCheck(r.period)}{${c}} / ${b})`, tc)],
      },
      {
        title: 'Certificate days left',
        type: 'stat',
        w: 6,
        unit: 'd',
        description:
          `Days until the leaf certificate the last probe was served expires. A ticket below ${days(r.certExpiryWarningS)} days` +
          (r.certExpiryCriticalS === undefined ? '; an expired certificate fails the checks, which pages as downtime.' : `, a page below ${days(r.certExpiryCriticalS)}.`),
        thresholds: certSteps,
        queries: [q(daysLeft, tc)],
      },
      {
        title: 'Last probe (age)',
        type: 'stat',
        w: 6,
        unit: 's',
        description: `Seconds since each check's last probe finished; stale (alert) after ${2 * r.probeIntervalS} s, twice the probe interval.`,
        thresholds: [[null, 'green'], [2 * r.probeIntervalS, 'red']],
        queries: [q(`time() - max by (target, check) (${p.lastRun.name}{${c}})`, tc)],
      },
      {
        title: 'Last success (age)',
        type: 'stat',
        w: 6,
        unit: 's',
        description: "Seconds since each check's last successful probe: how long it has been failing (0 to a probe interval while it succeeds).",
        thresholds: [[null, 'green'], [2 * r.probeIntervalS, 'red']],
        queries: [q(`time() - max by (target, check) (${p.lastSuccess.name}{${c}})`, tc)],
      },
      { title: 'TLS version', type: 'table', w: 6, h: 4, queries: [{ expr: `${p.tlsVersion.name}{${c}}`, instant: true }] },
      { title: 'Probe success by check', type: 'timeseries', min: 0, max: 1, queries: [q(`${p.success.name}{${c}}`, tc)] },
      { title: 'Probe results', type: 'timeseries', unit: 'ops', queries: [q(`sum by (target, result) (${rate(`${p.total.name}{${c}}`)})`, '{{target}} {{result}}')] },
      {
        title: 'Probe duration by phase (p90)',
        type: 'timeseries',
        unit: 's',
        queries: [q(`histogram_quantile(0.9, sum by (le, target, phase) (${rate(`${p.duration.name}_bucket{${c}}`)}))`, '{{target}} {{phase}}')],
      },
      {
        title: 'Failed probes by check (time range)',
        type: 'timeseries',
        queries: [q(`sum by (target, check) (increase(${p.total.name}{${c},result!="success"}[$__range]))`, tc)],
      },
      {
        title: 'Certificate days left over time',
        type: 'timeseries',
        unit: 'd',
        thresholds: certSteps,
        queries: [q(daysLeft, tc)],
      },
      {
        title: 'Uptime burn rate (1h and 5m)',
        type: 'timeseries',
        description: 'The windows of the fastest burn-rate alert: both above 14.4 pages.',
        thresholds: [[null, 'green'], [1, 'yellow'], [14.4, 'red']],
        queries: ['1h', '5m'].map((w) => q(`${RECORDING_RULES.probeErrorRatioByCheck(w)}{${c}} / ${b}`, `{{target}} {{check}} ${w}`)),
      },
    ],
  };
}
