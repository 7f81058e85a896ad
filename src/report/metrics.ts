/**
 * Looking up threshold metrics in a report, so thresholds are judged against exactly what the
 * report says (the final one, or an interim one while the run is live).
 */
import type { Pct } from '../collect/histogram.js';
import type { PctStat, StreamMetric } from '../slo/threshold-grammar.js';
import { parseMetricKey } from '../slo/threshold-grammar.js';
import { evaluateThresholds } from '../slo/thresholds.js';
import type { ParsedThreshold } from '../slo/thresholds.js';
import type { Report, StreamReport } from './model.js';

const STREAM_FIELD: Readonly<Record<StreamMetric, keyof StreamReport>> = {
  ttft: 'ttftMs',
  itl: 'itlMs',
  tpot: 'tpotMs',
  timeToStart: 'timeToStartMs',
  tokensPerS: 'tokensPerS',
  ttfb: 'ttfbMs',
  timeToEnd: 'timeToEndMs',
};

/** A statistic of a summary; for an empty one, `count` is 0 and every other statistic unobserved. */
function stat(pct: Pct | undefined, s: PctStat): number | undefined {
  if (pct === undefined || pct.count === 0) return s === 'count' ? 0 : undefined;
  return pct[s];
}

/**
 * The value of a threshold metric key in `report`, in the key's unit (ms, ratio 0–1, count,
 * per second); `undefined` when the key is unknown or nothing was observed for it.
 *
 * - `<op>.latency.<stat>`: `ops.<op>.latencyMs`; `count` is 0 for an op never called.
 * - `stream.<timing>.<stat>`: `stream.<timing>Ms` (`stream.tokensPerS`).
 * - `availability`: `slo.availability`.
 * - `errors.rate`: bad / all requests (good + bad + excluded), the share of requests that failed
 *   the SLI; unlike `1 − availability`, excluded requests dilute it.
 * - `ratelimit.*`: `rateLimit.premature429|expected429|responses429`.
 * - `dropped`: `load.dropped`.
 * - `contract.violations`: every violation seen (`contractViolationTotals.total`).
 */
export function reportMetric(report: Report, key: string): number | undefined {
  const metric = parseMetricKey(key);
  if (metric === undefined) return undefined;
  switch (metric.kind) {
    case 'latency':
      return stat(report.ops[metric.op]?.latencyMs, metric.stat);
    case 'stream':
      return stat(report.stream[STREAM_FIELD[metric.metric]] as Pct, metric.stat);
    case 'availability':
      return report.slo.availability ?? undefined;
    case 'errorsRate': {
      const { good, bad, excluded } = report.slo;
      const all = good + bad + excluded;
      return all > 0 ? bad / all : undefined;
    }
    case 'ratelimit':
      return report.rateLimit[metric.metric];
    case 'dropped':
      return report.load.dropped;
    case 'contractViolations':
      return report.contractViolationTotals.total;
  }
}

/** Evaluates `thresholds` against `report` and returns the report with them (and `passed`) set. */
export function evaluateReportThresholds(report: Report, thresholds: readonly ParsedThreshold[]): Report {
  const results = evaluateThresholds(thresholds, (key) => reportMetric(report, key));
  return { ...report, thresholds: results, passed: results.every((r) => r.passed) };
}
