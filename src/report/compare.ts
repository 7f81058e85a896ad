/**
 * Comparing a run with a baseline: a side-by-side table of the figures people compare, and
 * regression rules that decide whether the current run got worse. Pure.
 *
 * Rule grammar (`--max-regression`): comma-separated `<metric>=<N><unit>`, `<metric>` a key of
 * the threshold grammar (`run.latency.p99`, `availability`, `stream.ttft.p95`, …):
 * - `N%`  relative change in the worse direction: an increase for latencies, counts and
 *         error rates, a decrease for availability and tokens per second;
 * - `Npp` percentage points, for ratios (`availability`, `errors.rate`);
 * - `Nms` absolute milliseconds, for latencies.
 */
import { OPS } from '../core/ops.js';
import { METRIC_KEY_HELP, parseMetricKey, unitOf } from '../slo/threshold-grammar.js';
import type { MetricKey, ThresholdUnit } from '../slo/threshold-grammar.js';
import { incomparability, judgeNoise, samplesOf } from './compare-noise.js';
import { fmtNumber, fmtThresholdValue } from './format.js';
import { reportMetric } from './metrics.js';
import type { Report } from './model.js';

/** What `parseRegressionRules` accepts, for messages. */
export const REGRESSION_RULE_HELP =
  'comma-separated <metric>=<N>% (relative: an increase for latencies, counts and errors.rate, a decrease for ' +
  'availability and stream.tokensPerS), <metric>=<N>pp (percentage points, for availability and errors.rate) or ' +
  `<metric>=<N>ms (absolute, for latencies), e.g. "run.latency.p99=10%,availability=0.05pp"; <metric> is ${METRIC_KEY_HELP}`;

/** How a rule measures a change. */
export type RegressionKind = 'percent' | 'pp' | 'ms';

/** One parsed regression rule. */
export interface RegressionRule {
  /** The metric key as written (trimmed). */
  readonly key: string;
  readonly metric: MetricKey;
  readonly unit: ThresholdUnit;
  readonly kind: RegressionKind;
  /** The allowed change: percent (10 = 10 %), percentage points, or ms. */
  readonly amount: number;
  /** The rule as written, for tables and messages. */
  readonly text: string;
}

/** Result of `parseRegressionRules`: never throws. */
export type ParseRulesResult = { readonly ok: true; readonly rules: RegressionRule[] } | { readonly ok: false; readonly error: string };

const RULE_VALUE = /^\s*(\d+(?:\.\d+)?)\s*(%|pp|ms)\s*$/;
const KIND: Readonly<Record<string, RegressionKind>> = { '%': 'percent', pp: 'pp', ms: 'ms' };

/** Parses `--max-regression`; the error names the rule and the grammar. */
export function parseRegressionRules(input: string): ParseRulesResult {
  const rules: RegressionRule[] = [];
  for (const raw of input.split(',')) {
    const text = raw.trim();
    if (text === '') continue;
    const eq = text.indexOf('=');
    const bad = (why: string): ParseRulesResult => ({ ok: false, error: `rule "${text}": ${why}; expected ${REGRESSION_RULE_HELP}` });
    if (eq < 0) return bad('no "="');
    const key = text.slice(0, eq).trim();
    const metric = parseMetricKey(key);
    if (metric === undefined) return bad(`"${key}" is not a metric key`);
    const m = RULE_VALUE.exec(text.slice(eq + 1));
    if (m === null) return bad('the allowed change must be a number with %, pp or ms');
    const kind = KIND[m[2] as string] as RegressionKind;
    const unit = unitOf(metric);
    if (kind === 'pp' && unit !== 'ratio') return bad(`pp (percentage points) applies to ratios (availability, errors.rate), not ${key}`);
    if (kind === 'ms' && unit !== 'ms') return bad(`ms applies to latencies, not ${key}`);
    rules.push({ key, metric, unit, kind, amount: Number(m[1]), text });
  }
  return { ok: true, rules };
}

/** True when a larger value of the metric is better (so a decrease is the regression). */
export function higherIsBetter(metric: MetricKey): boolean {
  return metric.kind === 'availability' || (metric.kind === 'stream' && metric.metric === 'tokensPerS' && metric.stat !== 'count');
}

/** One line of the comparison. */
export interface ComparisonRow {
  /** A threshold-grammar key, or `load.achievedRatePerS`. */
  readonly key: string;
  readonly baseline: number | undefined;
  readonly current: number | undefined;
  /** The change, formatted in the metric's unit (and relative where it means something). */
  readonly change: string;
  /** The rule that judged this row, as written. */
  readonly rule: string | undefined;
  /** True when the rule's limit was exceeded; undefined when no rule applies or it could not judge. */
  readonly regressed: boolean | undefined;
  /** Why a rule could not judge, or what failed it without a number. */
  readonly note: string | undefined;
  /** Samples behind the baseline's and the current figure (requests of the op, stream timings, …). */
  readonly baselineSamples: number;
  readonly currentSamples: number;
  /** True when the change exceeded the rule but the samples cannot support it (see compare-noise.ts). */
  readonly inconclusive: boolean;
}

/** The whole comparison. */
export interface Comparison {
  readonly rows: ComparisonRow[];
  /** Rows whose rule was exceeded. */
  readonly regressions: ComparisonRow[];
  /** Warnings (different scenarios, …). */
  readonly notes: string[];
  /** False when the runs differ in scenario, executor or target rate: no rule is judged. */
  readonly comparable: boolean;
  /** Rows whose rule was exceeded by a change the samples cannot support. */
  readonly inconclusive: ComparisonRow[];
}

const ACHIEVED = 'load.achievedRatePerS';
const EPS = 1e-9;

function valueOf(r: Report, key: string): number | undefined {
  if (key === ACHIEVED) return r.load.achievedRatePerS;
  const v = reportMetric(r, key);
  return v === undefined || Number.isNaN(v) ? undefined : v;
}

/** The standard rows: per-op latency, stream TTFT/ITL, availability, error rate, 429s, achieved rate. */
function standardKeys(base: Report, cur: Report): string[] {
  const keys: string[] = [];
  for (const op of OPS) {
    if (base.ops[op] === undefined && cur.ops[op] === undefined) continue;
    keys.push(`${op}.latency.p50`, `${op}.latency.p90`, `${op}.latency.p99`);
  }
  if (base.stream.count > 0 || cur.stream.count > 0) {
    keys.push('stream.ttft.p50', 'stream.ttft.p99', 'stream.itl.p50', 'stream.itl.p99');
  }
  keys.push('availability', 'errors.rate', 'ratelimit.responses429', 'ratelimit.premature429', ACHIEVED);
  return keys;
}

function fmtValue(key: string, v: number | undefined): string {
  if (v === undefined) return '—';
  return key === ACHIEVED ? `${fmtNumber(v)}/s` : fmtThresholdValue(key, v);
}

function fmtChange(key: string, b: number | undefined, c: number | undefined): string {
  if (b === undefined || c === undefined) return '—';
  const d = c - b;
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  const metric = parseMetricKey(key);
  const unit = metric === undefined ? 'perS' : unitOf(metric);
  const rel = b !== 0 ? ` (${sign}${Math.abs((d / b) * 100).toFixed(1)}%)` : d === 0 ? '' : ' (new)';
  if (unit === 'ratio') return `${sign}${fmtNumber(Math.abs(d * 100))}pp`;
  if (unit === 'ms') return `${sign}${fmtThresholdValue(key, Math.abs(d))}${rel}`;
  return `${sign}${fmtNumber(Math.abs(d))}${unit === 'perS' ? '/s' : ''}${rel}`;
}

/** Judges one rule; `regressed` undefined when the baseline lacks the metric. */
function judge(rule: RegressionRule, b: number | undefined, c: number | undefined): { regressed: boolean | undefined; note: string | undefined } {
  if (b === undefined) return { regressed: undefined, note: 'not in the baseline' };
  // A metric the baseline had and the current run lacks is a claim without evidence: it fails.
  if (c === undefined) return { regressed: true, note: 'not observed in the current run' };
  const worse = higherIsBetter(rule.metric) ? b - c : c - b;
  if (worse <= EPS * Math.max(1, Math.abs(b))) return { regressed: false, note: undefined };
  switch (rule.kind) {
    case 'percent':
      return { regressed: b === 0 || (worse / Math.abs(b)) * 100 > rule.amount + EPS, note: b === 0 ? 'baseline was 0' : undefined };
    case 'pp':
      return { regressed: worse * 100 > rule.amount + EPS, note: undefined };
    case 'ms':
      return { regressed: worse > rule.amount + EPS, note: undefined };
  }
}

/** Compares `current` with `baseline` under `rules` (several rules may name one metric). */
export function compareReports(baseline: Report, current: Report, rules: readonly RegressionRule[]): Comparison {
  const keys = standardKeys(baseline, current);
  for (const r of rules) if (!keys.includes(r.key)) keys.push(r.key);
  const notes = incomparability(baseline, current);
  const comparable = notes.length === 0;
  const rows: ComparisonRow[] = [];
  for (const key of keys) {
    const b = valueOf(baseline, key);
    const c = valueOf(current, key);
    const change = fmtChange(key, b, c);
    const counts = { baselineSamples: samplesOf(baseline, key), currentSamples: samplesOf(current, key), inconclusive: false };
    const applicable = rules.filter((r) => r.key === key);
    if (applicable.length === 0) rows.push({ key, baseline: b, current: c, change, rule: undefined, regressed: undefined, note: undefined, ...counts });
    for (const rule of applicable) {
      const row = { key, baseline: b, current: c, change, rule: rule.text, ...counts };
      if (!comparable) {
        rows.push({ ...row, regressed: undefined, note: 'not comparable' });
        continue;
      }
      const verdict = judge(rule, b, c);
      // Only a change past the rule needs the samples' word: one within it is ok either way.
      const noise = verdict.regressed === true && b !== undefined && c !== undefined ? judgeNoise(baseline, current, key, b, c) : undefined;
      if (noise?.inconclusive !== undefined) rows.push({ ...row, regressed: undefined, note: `inconclusive: ${noise.inconclusive}`, inconclusive: true });
      else rows.push({ ...row, ...verdict });
    }
  }
  return { rows, regressions: rows.filter((r) => r.regressed === true), notes, comparable, inconclusive: rows.filter((r) => r.inconclusive) };
}

/** Options of `renderComparison`. */
export interface RenderComparisonOptions {
  readonly baselineName?: string;
  readonly currentName?: string;
}

/** The comparison as an aligned text table, with a closing verdict line. */
export function renderComparison(c: Comparison, options: RenderComparisonOptions = {}): string {
  const head = ['metric', options.baselineName ?? 'baseline', options.currentName ?? 'current', 'change', 'samples', 'rule', 'verdict'];
  const body = c.rows.map((r) => [
    r.key,
    fmtValue(r.key, r.baseline),
    fmtValue(r.key, r.current),
    r.change,
    `${r.baselineSamples}/${r.currentSamples}`,
    r.rule ?? '',
    r.regressed === true ? `REGRESSION${r.note ? ` (${r.note})` : ''}` : r.regressed === false ? 'ok' : (r.note ?? ''),
  ]);
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => (i === 0 || i >= 5 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
  for (const n of c.notes) out.push(`note: ${n}`);
  const judged = c.rows.filter((r) => r.rule !== undefined).length;
  const inconclusive = c.inconclusive.length === 0 ? '' : `; ${c.inconclusive.length} inconclusive (the samples cannot tell the change from noise): ${c.inconclusive.map((r) => r.rule).join(', ')}`;
  out.push(
    '',
    !c.comparable
      ? `NOT COMPARABLE: ${c.notes.join('; ')}; no rule judged`
      : c.regressions.length > 0
      ? `${c.regressions.length} regression${c.regressions.length === 1 ? '' : 's'}: ${c.regressions.map((r) => r.rule).join(', ')}${inconclusive}`
      : judged === 0
        ? 'no regression rules given (--max-regression): nothing judged'
        : `no regressions (${judged} rule${judged === 1 ? '' : 's'} checked)${inconclusive}`,
  );
  return `${out.join('\n')}\n`;
}
