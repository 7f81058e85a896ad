/**
 * Prometheus recording and alerting rules for the SLOs, generated from the metric table
 * (`metric-names.ts`). Pure: returns an object in rule-file shape and its YAML text.
 *
 * Availability SLI = good / (good + bad) from `flowgauge_sli_events_total`; expected 429s and
 * negative tests are `sli="excluded"` and never count. Alerts follow the SRE workbook's
 * multiwindow, multi-burn-rate table: a long window proves the burn is significant, a short
 * one proves it is still happening (so an alert resets soon after the burn stops). The table
 * (`MULTIWINDOW_ALERTS` of `budget.ts`) is the 30-day one; other periods keep its factors.
 */
import { stringify } from 'yaml';
import { InvalidArgumentError } from '../core/errors.js';
import { parseDurationMs } from '../core/units.js';
import { MULTIWINDOW_ALERTS, type MultiwindowAlert } from './budget.js';
import {
  ALERT_NAMES,
  RECORDING_RULES,
  RUN_METRICS,
  isLatencyTarget,
  latencyTargetMetric,
  type LatencyTarget,
} from './metric-names.js';

/** A latency objective: `objective` of `operation`'s requests finish within `thresholdS`. */
export interface LatencyObjective {
  /** An operation name (`run`, `getRun`, …) or a stream timing (`stream.ttft`, `stream.itl`, `stream.time_to_start`). */
  readonly operation: string;
  readonly thresholdS: number;
  /** Ratio 0–1, e.g. 0.99. */
  readonly objective: number;
}

/** Options of `generatePrometheusRules` (and of the dashboards, which query the rules). */
export interface SloRuleOptions {
  /** Availability objective as a ratio, e.g. 0.999. */
  readonly objective: number;
  /** SLO period as a Prometheus duration, e.g. `30d`. */
  readonly period: string;
  readonly latencyObjectives?: readonly LatencyObjective[];
}

/** Options validated once: the period normalised, latency targets resolved. */
export interface ResolvedSloRuleOptions {
  readonly objective: number;
  /** Error budget as a ratio: 1 − objective. */
  readonly budget: number;
  /** Normalised Prometheus duration (`30d`, `12h`). */
  readonly period: string;
  readonly periodMs: number;
  /** Every window a ratio is recorded over, shortest first, the period last. */
  readonly windows: readonly string[];
  readonly latencyObjectives: readonly ResolvedLatencyObjective[];
}

/** A latency objective with its histogram resolved. */
export interface ResolvedLatencyObjective {
  readonly target: LatencyTarget;
  readonly thresholdS: number;
  readonly objective: number;
  readonly budget: number;
  /** Label values the latency rules carry: `{ target, threshold_seconds }`. */
  readonly labels: { readonly target: string; readonly threshold_seconds: string };
}

/** A recording rule. */
export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}

/** An alerting rule. */
export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** A rule group of a Prometheus rule file. */
export interface RuleGroup {
  name: string;
  rules: (RecordingRule | AlertingRule)[];
}

/** A Prometheus rule file (`groups:`), ready for YAML. */
export interface RuleFile {
  groups: RuleGroup[];
}

/** Windows the SLI ratios are recorded over (the period is added). */
export const SLO_WINDOWS = ['5m', '30m', '1h', '2h', '6h', '1d', '3d'] as const;

/**
 * How long both windows must stay above the burn rate before an alert fires: short for
 * pages (the short window already filters blips), longer for tickets.
 */
export const ALERT_FOR: Readonly<Record<MultiwindowAlert['severity'], string>> = { page: '2m', ticket: '15m' };

/** Trims binary-float noise (1 − 0.999 = 0.0010000000000000009) for rule text. */
export function formatNumber(x: number): string {
  return String(Number(x.toPrecision(12)));
}

/** Formats ms as the shortest exact Prometheus duration (`30d`, `36h`, `90s`). */
export function formatPromDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [u, f] of units) if (ms % f === 0) return `${ms / f}${u}`;
  return `${ms}ms`;
}

/** Validates and normalises rule options; throws `InvalidArgumentError` naming what is allowed. */
export function resolveSloRuleOptions(options: SloRuleOptions): ResolvedSloRuleOptions {
  const { objective } = options;
  if (!(objective > 0 && objective < 1)) {
    throw new InvalidArgumentError(`objective must be a ratio strictly between 0 and 1 (e.g. 0.999), got ${objective}`);
  }
  const periodMs = parseDurationMs(options.period);
  if (typeof options.period !== 'string' || periodMs === undefined || periodMs < 3_600_000 || periodMs % 1000 !== 0) {
    throw new InvalidArgumentError(`period must be a whole duration of at least 1h such as "30d" or "28d", got "${options.period}"`);
  }
  const period = formatPromDuration(periodMs);
  const windows = [...SLO_WINDOWS.filter((w) => parseDurationMs(w) !== periodMs), period];
  const latencyObjectives = (options.latencyObjectives ?? []).map((o): ResolvedLatencyObjective => {
    if (!isLatencyTarget(o.operation)) {
      throw new InvalidArgumentError(
        `latency objective target "${o.operation}" is not an operation name or one of stream.ttft, stream.itl, stream.time_to_start`,
      );
    }
    if (!(o.thresholdS > 0 && Number.isFinite(o.thresholdS))) {
      throw new InvalidArgumentError(`latency threshold of "${o.operation}" must be a positive number of seconds`);
    }
    if (!(o.objective > 0 && o.objective < 1)) {
      throw new InvalidArgumentError(`latency objective of "${o.operation}" must be a ratio strictly between 0 and 1`);
    }
    return {
      target: o.operation,
      thresholdS: o.thresholdS,
      objective: o.objective,
      budget: Number((1 - o.objective).toPrecision(12)),
      labels: { target: o.operation, threshold_seconds: formatNumber(o.thresholdS) },
    };
  });
  const seen = new Set<string>();
  for (const o of latencyObjectives) {
    const key = `${o.labels.target}@${o.labels.threshold_seconds}`;
    if (seen.has(key)) throw new InvalidArgumentError(`latency objective ${key} is given twice`);
    seen.add(key);
  }
  return { objective, budget: Number((1 - objective).toPrecision(12)), period, periodMs, windows, latencyObjectives };
}

/**
 * Latency objectives whose threshold is not a default bucket bound of their histogram. Their
 * rules only work when the run adds the threshold to its buckets (`latencyBucketsS`).
 */
export function thresholdsOutsideDefaultBuckets(objectives: readonly ResolvedLatencyObjective[]): ResolvedLatencyObjective[] {
  return objectives.filter((o) => !latencyTargetMetric(o.target).defaultBuckets.includes(o.thresholdS));
}

/**
 * PromQL matcher for the bucket whose upper bound is `thresholdS`. prom-client writes `le="2"`;
 * Prometheus 3 rewrites integral bounds as `2.0` on ingestion, so both spellings match.
 */
function leMatcher(thresholdS: number): string {
  const s = formatNumber(thresholdS);
  return Number.isInteger(thresholdS) ? `le=~"${s}|${s}.0"` : `le="${s}"`;
}

function sel(metric: string, matchers: readonly string[]): string {
  const m = matchers.filter((x) => x !== '');
  return m.length === 0 ? metric : `${metric}{${m.join(',')}}`;
}

/** bad / (good + bad); a tier without bad events reads 0, not "no data". */
function sliErrorRatioExpr(window: string, by: string): string {
  const m = RUN_METRICS.sliEvents.name;
  const agg = by === '' ? 'sum' : `sum by (${by})`;
  const bad = `${agg} (rate(${m}{sli="bad"}[${window}]))`;
  const good = `${agg} (rate(${m}{sli="good"}[${window}]))`;
  const valid = `${agg} (rate(${m}{sli=~"good|bad"}[${window}]))`;
  return `(${bad} or ${good} * 0) / ${valid}`;
}

/** 1 − (requests within the threshold / all requests), from the histogram's buckets. */
function latencyErrorRatioExpr(o: ResolvedLatencyObjective, window: string, by: string): string {
  const t = latencyTargetMetric(o.target);
  const agg = by === '' ? 'sum' : `sum by (${by})`;
  const within = `${agg} (rate(${sel(`${t.histogram}_bucket`, [t.matchers, leMatcher(o.thresholdS)])}[${window}]))`;
  const all = `${agg} (rate(${sel(`${t.histogram}_count`, [t.matchers])}[${window}]))`;
  return `1 - (${within} / ${all})`;
}

function budgetLasts(periodMs: number, factor: number): string {
  const hours = periodMs / 3_600_000 / factor;
  return hours < 48 ? `${formatNumber(Number(hours.toFixed(1)))} hours` : `${formatNumber(Number((hours / 24).toFixed(1)))} days`;
}

function burnAlert(
  name: string,
  what: string,
  recordByTier: (w: string) => string,
  seriesMatchers: string,
  budget: number,
  objective: number,
  r: ResolvedSloRuleOptions,
  row: MultiwindowAlert,
  extraLabels: Record<string, string>,
): AlertingRule {
  const threshold = formatNumber(row.burnRate * budget);
  const long = sel(recordByTier(row.long), [seriesMatchers]);
  const short = sel(recordByTier(row.short), [seriesMatchers]);
  const pct = (x: number): string => `${formatNumber(x * 100)} %`;
  return {
    alert: name,
    expr: `${long} > ${threshold} and ${short} > ${threshold}`,
    for: ALERT_FOR[row.severity],
    labels: { severity: row.severity, ...extraLabels, long_window: row.long, short_window: row.short },
    annotations: {
      summary: `flowgauge ${what} is burning its error budget ${formatNumber(row.burnRate)}x too fast on tier {{ $labels.tier }}`,
      description:
        `The ${what} error ratio is above ${pct(row.burnRate * budget)} over both the last ${row.long} and the last ${row.short}: ` +
        `${formatNumber(row.burnRate)} times the ${pct(budget)} budget of a ${pct(objective)} objective over ${r.period}. ` +
        `At this rate the ${r.period} budget is spent in about ${budgetLasts(r.periodMs, row.burnRate)}.`,
    },
  };
}

/** Builds the recording and alerting rules for the objectives. */
export function generatePrometheusRules(options: SloRuleOptions): RuleFile {
  const r = resolveSloRuleOptions(options);
  const records: RecordingRule[] = [];
  for (const w of r.windows) {
    records.push({ record: RECORDING_RULES.sliErrorRatio(w), expr: sliErrorRatioExpr(w, '') });
    records.push({ record: RECORDING_RULES.sliErrorRatioByTier(w), expr: sliErrorRatioExpr(w, 'tier') });
  }
  for (const o of r.latencyObjectives) {
    for (const w of r.windows) {
      records.push({ record: RECORDING_RULES.latencyErrorRatio(w), expr: latencyErrorRatioExpr(o, w, ''), labels: { ...o.labels } });
      records.push({
        record: RECORDING_RULES.latencyErrorRatioByTier(w),
        expr: latencyErrorRatioExpr(o, w, 'tier'),
        labels: { ...o.labels },
      });
    }
  }

  const alerts: AlertingRule[] = [];
  for (const row of MULTIWINDOW_ALERTS) {
    alerts.push(
      burnAlert(ALERT_NAMES.availability, 'availability', RECORDING_RULES.sliErrorRatioByTier, '', r.budget, r.objective, r, row, {
        slo: 'availability',
      }),
    );
  }
  for (const o of r.latencyObjectives) {
    const matchers = `target="${o.labels.target}",threshold_seconds="${o.labels.threshold_seconds}"`;
    const what = `${o.target} latency (within ${o.labels.threshold_seconds}s)`;
    for (const row of MULTIWINDOW_ALERTS) {
      alerts.push(
        burnAlert(ALERT_NAMES.latency, what, RECORDING_RULES.latencyErrorRatioByTier, matchers, o.budget, o.objective, r, row, {
          slo: 'latency',
          ...o.labels,
        }),
      );
    }
  }
  return {
    groups: [
      { name: 'flowgauge-slo-recording', rules: records },
      { name: 'flowgauge-slo-alerts', rules: alerts },
    ],
  };
}

/** The rule file as YAML, with a header saying how it was made. */
export function renderRulesYaml(file: RuleFile): string {
  const header =
    '# Generated by `flowgauge slo rules`. Change the options and regenerate rather than editing by hand.\n' +
    '# Recording rules: SLI error ratios per window; alerts: multiwindow, multi-burn-rate (SRE workbook).\n';
  return header + stringify(file, { lineWidth: 0 });
}
