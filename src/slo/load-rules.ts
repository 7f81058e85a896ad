/**
 * Rules on the load-run SLI series (`flowgauge_sli_events_total`, the latency histograms): what
 * a load test measured, labelled `sli_source="load"`. They feed the SLO dashboard; they alert
 * only when asked (`loadAlerts`), and then at `severity: info`, because a load test pushes the
 * service on purpose and is judged by its report's thresholds, never by a page.
 *
 * Every ratio is per target (the run's `--target-name`), as the probe rules are: a staging run's
 * errors are not production's, and production's good events must not hide staging's bad ones.
 * A latency objective is named by `operation`, since `target` is taken by the service.
 *
 * Availability SLI = good / (good + bad); expected 429s and negative tests are
 * `sli="excluded"` and never count.
 */
import { burnAlerts, sel } from './burn-alerts.js';
import { ALERT_NAMES, RECORDING_RULES, RUN_METRICS, SLI_SOURCE, latencyTargetMetric } from './metric-names.js';
import { formatNumber, type AlertingRule, type RecordingRule, type ResolvedLatencyObjective, type ResolvedSloRuleOptions } from './rule-options.js';

const SOURCE = { [SLI_SOURCE.label]: SLI_SOURCE.load };

/** What the ratios are split by: every tier of a target together, and per tier. */
const BY_TARGET = 'target';
const BY_TARGET_TIER = 'target, tier';

/**
 * PromQL matcher for the bucket whose upper bound is `thresholdS`. prom-client writes `le="2"`;
 * Prometheus 3 rewrites integral bounds as `2.0` on ingestion, so both spellings match.
 */
function leMatcher(thresholdS: number): string {
  const s = formatNumber(thresholdS);
  return Number.isInteger(thresholdS) ? `le=~"${s}|${s}.0"` : `le="${s}"`;
}

/** bad / (good + bad); a tier without bad events reads 0, not "no data". */
function sliErrorRatioExpr(window: string, by: string): string {
  const m = RUN_METRICS.sliEvents.name;
  const agg = `sum by (${by})`;
  const bad = `${agg} (rate(${m}{sli="bad"}[${window}]))`;
  const good = `${agg} (rate(${m}{sli="good"}[${window}]))`;
  const valid = `${agg} (rate(${m}{sli=~"good|bad"}[${window}]))`;
  return `(${bad} or ${good} * 0) / ${valid}`;
}

/** 1 − (requests within the threshold / all requests), from the histogram's buckets. */
function latencyErrorRatioExpr(o: ResolvedLatencyObjective, window: string, by: string): string {
  const t = latencyTargetMetric(o.target);
  const agg = `sum by (${by})`;
  const within = `${agg} (rate(${sel(`${t.histogram}_bucket`, [t.matchers, leMatcher(o.thresholdS)])}[${window}]))`;
  const all = `${agg} (rate(${sel(`${t.histogram}_count`, [t.matchers])}[${window}]))`;
  return `1 - (${within} / ${all})`;
}

/** Recording rules of the load-run SLIs: availability, and each latency objective, per window and target. */
export function loadRecordingRules(r: ResolvedSloRuleOptions): RecordingRule[] {
  const records: RecordingRule[] = [];
  for (const w of r.windows) {
    records.push({ record: RECORDING_RULES.sliErrorRatio(w), expr: sliErrorRatioExpr(w, BY_TARGET), labels: { ...SOURCE } });
    records.push({ record: RECORDING_RULES.sliErrorRatioByTier(w), expr: sliErrorRatioExpr(w, BY_TARGET_TIER), labels: { ...SOURCE } });
  }
  for (const o of r.latencyObjectives) {
    for (const w of r.windows) {
      records.push({ record: RECORDING_RULES.latencyErrorRatio(w), expr: latencyErrorRatioExpr(o, w, BY_TARGET), labels: { ...SOURCE, ...o.labels } });
      records.push({ record: RECORDING_RULES.latencyErrorRatioByTier(w), expr: latencyErrorRatioExpr(o, w, BY_TARGET_TIER), labels: { ...SOURCE, ...o.labels } });
    }
  }
  return records;
}

/** Burn-rate alerts on the load-run SLIs per target and tier, all `severity: info`; empty unless `loadAlerts`. */
export function loadAlertingRules(r: ResolvedSloRuleOptions): AlertingRule[] {
  if (!r.loadAlerts) return [];
  const tier = { label: 'tier', noun: 'tier', of: { label: 'target', noun: 'target' } };
  const alerts = burnAlerts(
    {
      alert: ALERT_NAMES.availability,
      what: 'load-run availability',
      record: RECORDING_RULES.sliErrorRatioByTier,
      matchers: '',
      subject: tier,
      budget: r.budget,
      objective: r.objective,
      labels: { slo: 'availability', ...SOURCE },
      severity: 'info',
    },
    r,
  );
  for (const o of r.latencyObjectives) {
    alerts.push(
      ...burnAlerts(
        {
          alert: ALERT_NAMES.latency,
          what: `load-run ${o.target} latency (within ${o.labels.threshold_seconds}s)`,
          record: RECORDING_RULES.latencyErrorRatioByTier,
          matchers: `operation="${o.labels.operation}",threshold_seconds="${o.labels.threshold_seconds}"`,
          subject: tier,
          budget: o.budget,
          objective: o.objective,
          labels: { slo: 'latency', ...SOURCE, ...o.labels },
          severity: 'info',
        },
        r,
      ),
    );
  }
  return alerts;
}
