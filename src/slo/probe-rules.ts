/**
 * Rules on the uptime probes: the service's availability objective (99.9 % by default) as
 * Prometheus sees it, labelled `sli_source="probe"`. Good = `result="success"` of the
 * cumulative `flowgauge_probe_total`; anything else is bad. These are the rules that page:
 * burn-rate alerts per check, a check down, a prober that stopped, a certificate near expiry.
 */
import { burnAlerts } from './burn-alerts.js';
import { ALERT_NAMES, PROBE_METRICS, RECORDING_RULES, SLI_SOURCE } from './metric-names.js';
import { formatPromDuration, type AlertingRule, type RecordingRule, type ResolvedSloRuleOptions } from './rule-options.js';

const SOURCE = { [SLI_SOURCE.label]: SLI_SOURCE.probe };

/** failed / all probes; a check without failures reads 0, not "no data". */
function probeErrorRatioExpr(window: string, by: string): string {
  const m = PROBE_METRICS.total.name;
  const agg = by === '' ? 'sum' : `sum by (${by})`;
  const bad = `${agg} (rate(${m}{result!="success"}[${window}]))`;
  const good = `${agg} (rate(${m}{result="success"}[${window}]))`;
  const all = `${agg} (rate(${m}[${window}]))`;
  return `(${bad} or ${good} * 0) / ${all}`;
}

/** Recording rules of the probe SLI, per window: all checks, and per check. */
export function probeRecordingRules(r: ResolvedSloRuleOptions): RecordingRule[] {
  return r.windows.flatMap((w) => [
    { record: RECORDING_RULES.probeErrorRatio(w), expr: probeErrorRatioExpr(w, ''), labels: { ...SOURCE } },
    { record: RECORDING_RULES.probeErrorRatioByCheck(w), expr: probeErrorRatioExpr(w, 'check'), labels: { ...SOURCE } },
  ]);
}

/** Uptime burn-rate alerts per check, probe down, probe stale, certificate expiry. */
export function probeAlertingRules(r: ResolvedSloRuleOptions): AlertingRule[] {
  const p = PROBE_METRICS;
  const staleS = 2 * r.probeIntervalS;
  const interval = formatPromDuration(r.probeIntervalS * 1000);
  const left = `${p.tlsCertExpiry.name} - time()`;
  const warn = formatPromDuration(r.certExpiryWarningS * 1000);
  const crit = formatPromDuration(r.certExpiryCriticalS * 1000);
  const cert = (severity: string, expr: string, within: string): AlertingRule => ({
    alert: ALERT_NAMES.certExpiry,
    expr,
    labels: { severity, ...SOURCE },
    annotations: {
      summary: 'The certificate of check {{ $labels.check }} expires in {{ $value | humanizeDuration }}',
      description:
        `The leaf certificate the probe of check {{ $labels.check }} was served expires within ${within} ` +
        `(${p.tlsCertExpiry.name}). Renew it: clients refuse an expired certificate, which is an outage.`,
    },
  });
  return [
    ...burnAlerts(
      {
        alert: ALERT_NAMES.uptime,
        what: 'uptime',
        record: RECORDING_RULES.probeErrorRatioByCheck,
        matchers: '',
        subject: { label: 'check', noun: 'check' },
        budget: r.budget,
        objective: r.objective,
        labels: { slo: 'uptime', ...SOURCE },
      },
      r,
    ),
    {
      alert: ALERT_NAMES.probeDown,
      expr: `${p.success.name} == 0`,
      for: r.probeDownFor,
      labels: { severity: 'critical', ...SOURCE },
      annotations: {
        summary: `Every probe of check {{ $labels.check }} has failed for ${r.probeDownFor}`,
        description:
          `${p.success.name} of check {{ $labels.check }} has been 0 for at least ${r.probeDownFor}: the service fails this check. ` +
          `${ALERT_NAMES.uptime} says how fast that spends the error budget.`,
      },
    },
    {
      alert: ALERT_NAMES.probeStale,
      expr: `time() - ${p.lastRun.name} > ${staleS}`,
      labels: { severity: 'warning', ...SOURCE },
      annotations: {
        summary: 'No probe of check {{ $labels.check }} has run for {{ $value | humanizeDuration }}',
        description:
          `The last probe of check {{ $labels.check }} finished {{ $value | humanizeDuration }} ago; probes should run every ${interval} ` +
          `and the check is stale after ${formatPromDuration(staleS * 1000)}. The prober stopped (CronJob suspended or failing, daemon down): ` +
          'until it runs again, nothing watches the service and the uptime rules read old data.',
      },
    },
    cert('warning', `${left} < ${r.certExpiryWarningS} and ${left} >= ${r.certExpiryCriticalS}`, warn),
    cert('critical', `${left} < ${r.certExpiryCriticalS}`, crit),
  ];
}
