/**
 * The SLO dashboard, in two sections kept apart as the rules keep them: the uptime objective
 * from the probes (the service's SLO; its alerts page) and the load-run SLI (what a test
 * measured; never pages). Both read the recording rules, per target and check and per target
 * and tier; one `target` variable filters both, offering the probed and the load-tested targets.
 */
import { q, rate, type DashboardSpec, type PanelSpec } from './dashboard-kit.js';
import { loadRunAnnotation } from './dashboard-run.js';
import { probeFailureAnnotation } from './dashboard-uptime.js';
import { ALERT_NAMES, PROBE_METRICS, RECORDING_RULES, RUN_METRICS, SLI_SOURCE } from './metric-names.js';
import { formatNumber, type ResolvedSloRuleOptions } from './rule-options.js';

/** Stats and trends of one error-ratio recording rule family against a budget. */
function budgetPanels(r: ResolvedSloRuleOptions, what: string, record: (w: string) => string, sel: string, legend: string): PanelSpec[] {
  const b = formatNumber(r.budget);
  const pct = `${formatNumber(r.objective * 100)} %`;
  return [
    {
      title: `${what} (${r.period})`,
      type: 'stat',
      w: 8,
      unit: 'percentunit',
      thresholds: [[null, 'red'], [r.objective, 'green']],
      queries: [q(`1 - ${record(r.period)}${sel}`, legend)],
    },
    {
      title: `Error budget remaining (${r.period})`,
      type: 'stat',
      w: 8,
      unit: 'percentunit',
      description: `Share of the ${b} error budget (objective ${pct}) not yet spent over the period.`,
      thresholds: [[null, 'red'], [0.25, 'orange'], [0.5, 'green']],
      queries: [q(`1 - (${record(r.period)}${sel} / ${b})`, legend)],
    },
    {
      title: 'Burn rate (1h)',
      type: 'stat',
      w: 8,
      thresholds: [[null, 'green'], [1, 'orange'], [14.4, 'red']],
      queries: [q(`${record('1h')}${sel} / ${b}`, legend)],
    },
    {
      title: `${what} over each window`,
      type: 'timeseries',
      unit: 'percentunit',
      max: 1,
      thresholds: [[null, 'red'], [r.objective, 'green']],
      queries: r.windows.map((w) => q(`1 - ${record(w)}${sel}`, `${legend} ${w}`)),
    },
    {
      title: 'Burn rate per window',
      type: 'timeseries',
      description: 'Error ratio divided by the budget. Burn-rate alerts: 1h & 5m > 14.4, 6h & 30m > 6 (critical); 1d & 2h > 3, 3d & 6h > 1 (warning).',
      thresholds: [[null, 'green'], [1, 'yellow'], [3, 'orange'], [6, 'red'], [14.4, 'purple']],
      queries: r.windows.map((w) => q(`${record(w)}${sel} / ${b}`, `${legend} ${w}`)),
    },
  ];
}

/** The SLO dashboard's description. */
export function sloDashboardSpec(r: ResolvedSloRuleOptions): DashboardSpec {
  const check = '{target=~"$target",check=~"$check"}';
  const tier = '{target=~"$target",tier=~"$tier"}';
  const pct = `${formatNumber(r.objective * 100)} %`;
  const panels: (PanelSpec | { row: string })[] = [
    { row: `Uptime SLO from the probes (${SLI_SOURCE.label}="${SLI_SOURCE.probe}"): the service's objective, these alerts page` },
    ...budgetPanels(r, 'Uptime', RECORDING_RULES.probeErrorRatioByCheck, check, '{{target}} {{check}}'),
    {
      title: 'Probe results',
      type: 'timeseries',
      unit: 'ops',
      queries: [q(`sum by (target, result) (${rate(`${PROBE_METRICS.total.name}${check}`)})`, '{{target}} {{result}}')],
    },
    {
      title: 'flowgauge alerts (pending or firing)',
      type: 'table',
      queries: [{ expr: `ALERTS{alertname=~"Flowgauge.*"}`, instant: true }],
      description:
        `${ALERT_NAMES.uptime}, ${ALERT_NAMES.probeDown}, ${ALERT_NAMES.probeStale}, ${ALERT_NAMES.proberDown}, ${ALERT_NAMES.probeAbsent}, ` +
        `${ALERT_NAMES.certExpiry} and ${ALERT_NAMES.tlsVersion} come from the probes; load-run alerts exist only when the rules were generated with --load-alerts, at severity info.`,
    },
    { row: `Load-run SLI (${SLI_SOURCE.label}="${SLI_SOURCE.load}"): what load tests measured, never pages` },
    ...budgetPanels(r, 'Load-run availability', RECORDING_RULES.sliErrorRatioByTier, tier, '{{target}} {{tier}}'),
    {
      title: 'SLI events by class',
      type: 'timeseries',
      unit: 'reqps',
      w: 24,
      description: 'Excluded: expected 429s and negative tests; they never count against the objective.',
      queries: [q(`sum by (target, sli) (${rate(`${RUN_METRICS.sliEvents.name}${tier}`)})`, '{{target}} {{sli}}')],
    },
  ];
  for (const o of r.latencyObjectives) {
    const sel = `{target=~"$target",tier=~"$tier",operation="${o.labels.operation}",threshold_seconds="${o.labels.threshold_seconds}"}`;
    const lb = formatNumber(o.budget);
    panels.push({
      title: `${o.target} slower than ${o.labels.threshold_seconds}s: burn rate per window`,
      type: 'timeseries',
      w: 24,
      description: `Objective: ${formatNumber(o.objective * 100)} % within ${o.labels.threshold_seconds}s.`,
      thresholds: [[null, 'green'], [1, 'yellow'], [6, 'red']],
      queries: r.windows.map((w) => q(`${RECORDING_RULES.latencyErrorRatioByTier(w)}${sel} / ${lb}`, `{{target}} {{tier}} ${w}`)),
    });
  }
  return {
    uid: 'flowgauge-slo',
    title: 'flowgauge — SLOs and error budget',
    description: `Uptime objective ${pct} over ${r.period} from the probes (pages), and the load-run SLI (never pages), from the flowgauge recording rules.`,
    variables: [
      // Probed targets and load-tested ones: staging may only be load-tested.
      { name: 'target', label: 'Target', metric: `{__name__=~"${PROBE_METRICS.total.name}|${RUN_METRICS.sliEvents.name}"}` },
      { name: 'check', label: 'Check', metric: `${PROBE_METRICS.total.name}{target=~"$target"}` },
      { name: 'tier', label: 'Tier', metric: `${RUN_METRICS.sliEvents.name}{target=~"$target"}` },
    ],
    annotations: [probeFailureAnnotation(), loadRunAnnotation('target=~"$target",tier=~"$tier"')],
    panels,
  };
}
