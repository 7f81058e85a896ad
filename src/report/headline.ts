/** The verdict headline of a report, for every rendering (console, report.md, report.html). */
import { fmtThresholdValue } from './format.js';
import type { Report } from './model.js';
import { verdictHeadline, type RunVerdict } from './verdict.js';
import { compare } from '../slo/thresholds.js';

/**
 * The cut requests, when a threshold on availability (of the run or a scenario) failed at the
 * worst end of the range they leave and would have passed at the best.
 */
function cutFailedOf(r: Report): { cutFailed?: { cut: number; gracefulStopS?: number } } {
  const cut = r.slo.cut ?? 0;
  if (cut === 0) return {};
  const failed = r.thresholds.some((t) => {
    if (t.passed || !/(^|:)availability$/.test(t.metric)) return false;
    const scope = t.metric.includes(':') ? r.scenarios?.[t.metric.slice(0, t.metric.indexOf(':'))]?.slo : r.slo;
    const best = scope?.availabilityRange?.high;
    return best !== undefined && compare(t.op === '<' || t.op === '<=' ? (scope?.availabilityRange?.low ?? best) : best, t.op, t.value);
  });
  return failed ? { cutFailed: { cut, ...(r.load.gracefulStopS === undefined ? {} : { gracefulStopS: r.load.gracefulStopS }) } } : {};
}

/** The verdict word and the notes beside it. */
export function headlineOf(r: Report): { readonly word: RunVerdict; readonly notes: readonly string[] } {
  return verdictHeadline(
    {
      interrupted: r.interrupted,
      abortedBy: r.abortedBy,
      passed: r.passed,
      durationS: r.durationS,
      thresholds: r.thresholds,
      totals: { requests: r.slo.good + r.slo.bad + r.slo.excluded, responses429: r.rateLimit.responses429, headerless429: r.rateLimit.headerless429 ?? 0, gateway429: r.rateLimit.gateway429 ?? 0 },
      ...cutFailedOf(r),
      streams: { count: r.stream.count, deliveredAtOnce: r.stream.deliveredAtOnce ?? 0 },
      shards: r.shards,
    },
    fmtThresholdValue,
  );
}
