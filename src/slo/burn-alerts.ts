/**
 * Multiwindow, multi-burn-rate alerts (SRE workbook): a long window proves the burn is
 * significant, a short one proves it is still happening (so an alert resets soon after the
 * burn stops). The table (`MULTIWINDOW_ALERTS` of `budget.ts`) is the 30-day one; other periods
 * keep its factors. Shared by the probe (uptime) and load-run alerts.
 */
import { MULTIWINDOW_ALERTS, type MultiwindowAlert } from './budget.js';
import { formatNumber, type AlertingRule, type ResolvedSloRuleOptions } from './rule-options.js';

/** Alert severities, in the vocabulary Alertmanager routes usually match on. */
export type Severity = 'critical' | 'warning' | 'info';

/** The workbook's page rows are `critical`, its ticket rows `warning`. */
export const SEVERITY_OF: Readonly<Record<MultiwindowAlert['severity'], Severity>> = { page: 'critical', ticket: 'warning' };

/**
 * How long both windows must stay above the burn rate before an alert fires: short for
 * pages (the short window already filters blips), longer for tickets.
 */
export const ALERT_FOR: Readonly<Record<MultiwindowAlert['severity'], string>> = { page: '2m', ticket: '15m' };

/** What one family of burn-rate alerts is about. */
export interface BurnAlertSpec {
  readonly alert: string;
  /** What burns, for the annotations: `uptime`, `availability`, `run latency (within 2s)`. */
  readonly what: string;
  /** The per-subject error-ratio recording rule, by window. */
  readonly record: (window: string) => string;
  /** PromQL matchers (no braces) picking this objective's recorded series; '' for all. */
  readonly matchers: string;
  /**
   * The label the ratio is split by (`check`, `tier`) and how the summary names it; `of`, a
   * label naming what the subject belongs to (the probes' `target`).
   */
  readonly subject: { readonly label: string; readonly noun: string; readonly of?: { readonly label: string; readonly noun: string } };
  readonly budget: number;
  readonly objective: number;
  /** Labels every alert of the family carries besides severity and windows. */
  readonly labels: Record<string, string>;
  /** Overrides the table's severity for every row (load alerts: `info`). */
  readonly severity?: Severity;
}

/** A metric name with optional matchers. */
export function sel(metric: string, matchers: readonly string[]): string {
  const m = matchers.filter((x) => x !== '');
  return m.length === 0 ? metric : `${metric}{${m.join(',')}}`;
}

function budgetLasts(periodMs: number, factor: number): string {
  const hours = periodMs / 3_600_000 / factor;
  return hours < 48 ? `${formatNumber(Number(hours.toFixed(1)))} hours` : `${formatNumber(Number((hours / 24).toFixed(1)))} days`;
}

function burnAlert(spec: BurnAlertSpec, r: ResolvedSloRuleOptions, row: MultiwindowAlert): AlertingRule {
  const threshold = formatNumber(row.burnRate * spec.budget);
  const long = sel(spec.record(row.long), [spec.matchers]);
  const short = sel(spec.record(row.short), [spec.matchers]);
  const pct = (x: number): string => `${formatNumber(x * 100)} %`;
  return {
    alert: spec.alert,
    expr: `${long} > ${threshold} and ${short} > ${threshold}`,
    for: ALERT_FOR[row.severity],
    labels: { severity: spec.severity ?? SEVERITY_OF[row.severity], ...spec.labels, long_window: row.long, short_window: row.short },
    annotations: {
      summary:
        `flowgauge ${spec.what} is burning its error budget ${formatNumber(row.burnRate)}x too fast on ${spec.subject.noun} {{ $labels.${spec.subject.label} }}` +
        (spec.subject.of === undefined ? '' : ` of ${spec.subject.of.noun} {{ $labels.${spec.subject.of.label} }}`),
      description:
        `The ${spec.what} error ratio is above ${pct(row.burnRate * spec.budget)} over both the last ${row.long} and the last ${row.short}: ` +
        `${formatNumber(row.burnRate)} times the ${pct(spec.budget)} budget of a ${pct(spec.objective)} objective over ${r.period}. ` +
        `At this rate the ${r.period} budget is spent in about ${budgetLasts(r.periodMs, row.burnRate)}.`,
    },
  };
}

/** One alert per row of the burn-rate table. */
export function burnAlerts(spec: BurnAlertSpec, r: ResolvedSloRuleOptions): AlertingRule[] {
  return MULTIWINDOW_ALERTS.map((row) => burnAlert(spec, r, row));
}
