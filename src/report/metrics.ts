/**
 * Looking up threshold metrics in a report, so thresholds are judged against exactly what the
 * report says (the final one, or an interim one while the run is live).
 */
import type { Pct } from '../collect/histogram.js';
import { streamTimingOf, type StreamTimingField } from '../core/stream-timings.js';
import type { MetricKey, OpCounter, PctStat } from '../slo/threshold-grammar.js';
import { parseThresholdKey } from '../slo/threshold-grammar.js';
import { compare, evaluateThresholds } from '../slo/thresholds.js';
import type { ParsedThreshold, ThresholdResult } from '../slo/thresholds.js';
import type { Report, StreamReport } from './model.js';
import { reportVerdict } from './verdict.js';

/**
 * What thresholds read: the parts of a report (or of a run's live state, or of one scenario's
 * section) that metric keys name. A report is one; the engine builds a live one each second.
 */
export type MetricView = Pick<Report, 'ops' | 'slo' | 'rateLimit'> & {
  readonly stream: Pick<StreamReport, StreamTimingField>;
  readonly load: { readonly dropped: number };
  readonly contractViolationTotals: { readonly total: number };
  readonly iterations?: { readonly failed: number; readonly durationMs: Pct } | undefined;
  readonly checks?: Readonly<Record<string, { readonly passes: number; readonly fails: number }>> | undefined;
  /** Views of each scenario, for keys scoped `<scenario>:<metric>`. */
  readonly scenarios?: Readonly<Record<string, MetricView>> | undefined;
};

/** Pass ratio of the named check, or of all checks; undefined when none ran. */
function checkRatio(checks: MetricView['checks'], name: string | undefined): number | undefined {
  if (checks === undefined) return undefined;
  const list = name === undefined ? Object.values(checks) : checks[name] === undefined ? [] : [checks[name]];
  let passes = 0;
  let all = 0;
  for (const c of list) {
    passes += c.passes;
    all += c.passes + c.fails;
  }
  return all > 0 ? passes / all : undefined;
}

/** A statistic of a summary; for an empty one, `count` is 0 and every other statistic unobserved. */
function stat(pct: Pct | undefined, s: PctStat): number | undefined {
  if (pct === undefined || pct.count === 0) return s === 'count' ? 0 : undefined;
  return pct[s];
}

/** A request counter of one row of `ops`: 0 sent and 0 failed for a row never called, its rate then unobserved. */
function requestCounter(row: { readonly count: number; readonly errors: Readonly<Record<string, number>> } | undefined, counter: OpCounter): number | undefined {
  const sent = row?.count ?? 0;
  let failed = 0;
  for (const n of Object.values(row?.errors ?? {})) failed += n;
  if (counter === 'count') return sent;
  if (counter === 'errors') return failed;
  return sent > 0 ? failed / sent : undefined;
}

/**
 * The value of a threshold key in `view` (`[<scenario>:]<metric>`, parsed by the grammar), in
 * the key's unit; `undefined` when the key is unknown or nothing was observed for it. For a
 * lookup by name (compare); thresholds carry their parsed key and use `metricValue`.
 */
export function reportMetric(view: MetricView, key: string): number | undefined {
  const parsed = parseThresholdKey(key);
  return parsed === undefined ? undefined : metricValue(view, parsed.metric, parsed.scope);
}

/**
 * The value of a metric in `view`, or in its scenario `scope`'s section, in the metric's unit
 * (ms, ratio 0–1, count, per second); `undefined` when nothing was observed for it (or the view
 * has no such scenario).
 *
 * - `<op>.latency.<stat>`: `ops.<op>.latencyMs` (`<op>` an operation or `http:<name>`); `count`
 *   is 0 for an op never called.
 * - `<op>.count`, `<op>.errors`: `ops.<op>.count` and the sum of `ops.<op>.errors` (0 for an op
 *   never called); `<op>.errors.rate` the one over the other (unobserved when none was sent).
 * - `stream.<timing>.<stat>`: `stream.<timing>Ms` (`stream.tokensPerS`).
 * - `availability`: `slo.availability`.
 * - `errors.rate`: bad / all requests (good + bad + excluded), the share of requests that failed
 *   the SLI; unlike `1 − availability`, excluded requests dilute it.
 * - `ratelimit.*`: `rateLimit.premature429|expected429|responses429`.
 * - `ratelimit.latency.<stat>`: `rateLimit.latencyMs`, the latency of the 429 answers.
 * - `dropped`: `load.dropped`.
 * - `contract.violations`: every violation seen (`contractViolationTotals.total`).
 */
export function metricValue(view: MetricView, metric: MetricKey, scope?: string): number | undefined {
  const report = scope === undefined ? view : view.scenarios?.[scope];
  if (report === undefined) return undefined;
  switch (metric.kind) {
    case 'latency':
      return stat(report.ops[metric.op]?.latencyMs, metric.stat);
    case 'requests':
      return requestCounter(report.ops[metric.op], metric.counter);
    case 'stream':
      return stat(report.stream[streamTimingOf(metric.metric).field] as Pct, metric.stat);
    case 'availability':
      return report.slo.availability ?? undefined;
    case 'errorsRate': {
      const { good, bad, excluded } = report.slo;
      const all = good + bad + excluded;
      return all > 0 ? bad / all : undefined;
    }
    case 'ratelimit':
      return report.rateLimit[metric.metric];
    case 'ratelimitLatency':
      return stat(report.rateLimit.latencyMs, metric.stat);
    case 'dropped':
      return report.load.dropped;
    case 'contractViolations':
      return report.contractViolationTotals.total;
    case 'iterationsFailed':
      return report.iterations?.failed;
    case 'iterationDuration':
      return stat(report.iterations?.durationMs, metric.stat);
    case 'checks':
      return checkRatio(report.checks, metric.name);
  }
}

/**
 * Availability as a threshold reads it: with requests cut unjudged (`slo.availabilityRange`),
 * the end of the range at which `t` fails, if either does; else the worst end for it. A
 * threshold passes only if it passes however the cut requests would have gone.
 */
function availabilityFor(view: MetricView, t: ParsedThreshold): number | undefined {
  const slo = (t.scope === undefined ? view : view.scenarios?.[t.scope])?.slo;
  const range = slo?.availabilityRange;
  if (slo === undefined || slo.availability === null || range === undefined) return metricValue(view, t.metric, t.scope);
  const failing = [range.low, range.high].find((v) => !compare(v, t.op, t.value));
  return failing ?? (t.op === '<' || t.op === '<=' ? range.high : range.low);
}

/** Evaluates `thresholds` against a view (a report, a live state, a scenario's section). */
export function evaluateThresholdsOn(view: MetricView, thresholds: readonly ParsedThreshold[]): ThresholdResult[] {
  return evaluateThresholds(thresholds, (_key, t) => (t.metric.kind === 'availability' ? availabilityFor(view, t) : metricValue(view, t.metric, t.scope)));
}

/** Evaluates `thresholds` against `report` and returns the report with them (and `passed`) set. */
export function evaluateReportThresholds(report: Report, thresholds: readonly ParsedThreshold[]): Report {
  const results = evaluateThresholdsOn(report, thresholds);
  const passed = results.every((r) => r.passed);
  return { ...report, thresholds: results, passed, verdict: reportVerdict({ interrupted: report.interrupted, abortedBy: report.abortedBy, passed }) };
}
