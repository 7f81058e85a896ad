/**
 * Thresholds: parse `{ key: expression }` pairs once, evaluate them against any metric lookup
 * (the final report, or an interim one while the run is live). Pure.
 */
import { isOpName, type OpName } from '../core/ops.js';
import { k6ExpressionHint, k6ThresholdHint } from './k6-thresholds.js';
import { suggestMetricKey } from './metric-key-suggest.js';
import { METRIC_KEY_HELP, EXPRESSION_HELP, parseExpression, parseMetricKey, parseThresholdKey, splitThresholdKey, thresholdKeyText, unitOf } from './threshold-grammar.js';
import type { Comparator, MetricKey, ThresholdUnit } from './threshold-grammar.js';

/**
 * A threshold ready to evaluate, parsed once from its key and expression and carried as it is
 * through evaluation (live, final) and merge. `value` is in `unit` (ms, ratio 0–1, count, per second).
 */
export interface ParsedThreshold {
  /** The key as written (trimmed), e.g. `run.latency.p99` or `pro:availability`; it is `metric` in results. */
  readonly key: string;
  /** The scenario whose figures it is judged on (`pro` of `pro:availability`); absent for the whole run. */
  readonly scope?: string;
  /** The metric, without its scope. */
  readonly metric: MetricKey;
  readonly unit: ThresholdUnit;
  readonly op: Comparator;
  readonly value: number;
  /** The expression as written, for messages. */
  readonly expression: string;
  /** True for a default the run is judged on because it set no thresholds. */
  readonly implicit?: boolean;
}

/** One evaluated threshold, exactly the shape of report.json's `thresholds` entries. */
export interface ThresholdResult {
  readonly metric: string;
  readonly op: Comparator;
  /** The limit, in the metric's unit (ms for latencies, ratio 0–1 for percentages). */
  readonly value: number;
  /** What was measured, in the same unit; null when nothing was observed. */
  readonly observed: number | null;
  readonly passed: boolean;
  /** True for a default the run was judged on because it set no thresholds. */
  readonly implicit?: boolean;
}

/**
 * Result of `parseThreshold`: never throws, so scenario validation can collect every problem.
 * `allowed` is the grammar's list of keys, given apart from the error so a validation of many
 * keys says it once.
 */
export type ParseThresholdResult =
  | { readonly ok: true; readonly threshold: ParsedThreshold }
  | { readonly ok: false; readonly error: string; readonly allowed?: string };

/** What is known of the run a threshold judges, for better hints. */
export interface ThresholdContext {
  /**
   * The operations its scenarios send, when known (mixes): a threshold on anything else is
   * refused (it would never be observed), a did-you-mean offers only what they send, and a k6
   * latency threshold names each of them. Undefined for a journey, which may send anything.
   */
  readonly ops?: readonly OpName[];
}

const mixSends = (ops: readonly OpName[]): string => `the mix sends ${ops.join(', ')}`;

/**
 * Why `metric` would never be observed in traffic that sends only `ops` (a mix), or undefined
 * when it may be (always, when `ops` is undefined: a journey may send any operation and its own
 * `http:<name>` requests, and make checks).
 */
export function unobservedReason(metric: MetricKey, ops: readonly OpName[] | undefined): string | undefined {
  if (ops === undefined) return undefined;
  if (metric.kind === 'latency' || metric.kind === 'requests') {
    if (!isOpName(metric.op)) return `${metric.op} is a journey's own request (vu.http); a mix sends none, so this would never be observed; ${mixSends(ops)}`;
    if (!ops.includes(metric.op)) return `${metric.op} is not in the mix, so this would never be observed; ${mixSends(ops)}`;
  }
  if (metric.kind === 'stream' && !ops.includes('stream')) return `no stream is in the mix, so this would never be observed; ${mixSends(ops)}`;
  if (metric.kind === 'iterationsFailed' || metric.kind === 'iterationDuration' || metric.kind === 'checks') {
    return 'iterations and checks come from a journey or steps; this scenario is a mix';
  }
  return undefined;
}

/** Shortens user input echoed in messages. */
function quote(s: string): string {
  const t = s.length > 60 ? `${s.slice(0, 57)}...` : s;
  return JSON.stringify(t);
}

/**
 * Parses one threshold, `[<scenario>:]<metric>` and its expression; the error says what is
 * allowed for that key. Whether the scope names a scenario of the run is the run's to check.
 */
export function parseThreshold(key: string, expr: string, context: ThresholdContext = {}): ParseThresholdResult {
  if (typeof key !== 'string' || typeof expr !== 'string') {
    return { ok: false, error: 'a threshold is a metric key and an expression string' };
  }
  const { scope, metricKey } = splitThresholdKey(key);
  if (scope !== undefined) {
    // Scoped: the metric key is parsed alone and messages speak of it (the path names the scope).
    const parsed = parseThreshold(metricKey, expr, context);
    return parsed.ok ? { ok: true, threshold: { ...parsed.threshold, key: thresholdKeyText({ scope, metricKey: parsed.threshold.key }), scope } } : parsed;
  }
  const metric = parseMetricKey(key);
  if (metric === undefined) {
    // k6's metric names and k6's expressions get the flowgauge thresholds to write instead.
    const k6 = k6ThresholdHint(key, [expr], context.ops) ?? k6ExpressionHint(key, expr);
    if (k6 !== undefined) return { ok: false, error: k6 };
    // Only a key that would be accepted here is offered: pasted back, it validates.
    const fixed = suggestMetricKey(key, (m) => unobservedReason(m, context.ops) === undefined);
    const hint = fixed !== undefined ? `; did you mean ${quote(fixed)}?` : '';
    return { ok: false, error: `unknown threshold metric ${quote(key)}${hint}`, allowed: METRIC_KEY_HELP };
  }
  const absent = unobservedReason(metric, context.ops);
  if (absent !== undefined) return { ok: false, error: absent };
  const unit = unitOf(metric);
  const parsed = parseExpression(expr, unit);
  if (typeof parsed === 'string') {
    // `checks: "rate>0.99"` is both a flowgauge key and k6's metric.
    const k6 = k6ThresholdHint(key, [expr], context.ops) ?? k6ExpressionHint(key, expr);
    if (k6 !== undefined) return { ok: false, error: k6 };
    return {
      ok: false,
      error: `threshold ${quote(key.trim())}: cannot read ${quote(expr)} (${parsed}); expected ${EXPRESSION_HELP[unit]}`,
    };
  }
  return { ok: true, threshold: { key: key.trim(), metric, unit, op: parsed.op, value: parsed.value, expression: expr.trim() } };
}

/**
 * The threshold a report's result was judged by, read back from the result (merge judges the
 * whole again by it); `undefined` when its key is not one this version reads.
 */
export function thresholdOfResult(r: ThresholdResult): ParsedThreshold | undefined {
  const key = parseThresholdKey(r.metric);
  if (key === undefined) return undefined;
  return {
    key: thresholdKeyText(key),
    ...(key.scope !== undefined ? { scope: key.scope } : {}),
    metric: key.metric,
    unit: unitOf(key.metric),
    op: r.op,
    value: r.value,
    expression: `${r.op} ${r.value}`,
    ...(r.implicit === true ? { implicit: true } : {}),
  };
}

/** Equality with a relative tolerance, so `== 0.999` matches a ratio computed as 999/1000. */
function nearlyEqual(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Applies a comparator. */
export function compare(observed: number, op: Comparator, value: number): boolean {
  switch (op) {
    case '<':
      return observed < value && !nearlyEqual(observed, value);
    case '<=':
      return observed <= value || nearlyEqual(observed, value);
    case '>':
      return observed > value && !nearlyEqual(observed, value);
    case '>=':
      return observed >= value || nearlyEqual(observed, value);
    case '==':
      return nearlyEqual(observed, value);
    case '!=':
      return !nearlyEqual(observed, value);
  }
}

/**
 * Evaluates thresholds against `metrics(key, threshold)`: a lookup reads the parsed
 * threshold's `scope` and `metric` (the key is for lookups by name). A metric with no observation (`undefined` or
 * NaN — e.g. `stream.ttft.p99` in a run without streams) fails with `observed: null`: a
 * threshold someone wrote down is a claim to check, and a claim with no evidence is not met.
 * The one exception is the default `checks` threshold of a journey that made no check.
 */
export function evaluateThresholds(
  parsed: readonly ParsedThreshold[],
  metrics: (key: string, threshold: ParsedThreshold) => number | undefined,
): ThresholdResult[] {
  return parsed.map((t) => {
    const observed = metrics(t.key, t);
    if (observed === undefined || Number.isNaN(observed)) {
      // The default on checks (a journey's, in a scenario without thresholds) is no claim of its
      // own: a journey that made no check has none that failed.
      const vacuous = t.implicit === true && t.metric.kind === 'checks';
      return { metric: t.key, op: t.op, value: t.value, observed: null, passed: vacuous, ...(t.implicit === true ? { implicit: true } : {}) };
    }
    return { metric: t.key, op: t.op, value: t.value, observed, passed: compare(observed, t.op, t.value), ...(t.implicit === true ? { implicit: true } : {}) };
  });
}
