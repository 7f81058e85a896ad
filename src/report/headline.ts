/** The verdict headline of a report, for every rendering (console, report.md, report.html). */
import { fmtThresholdValue } from './format.js';
import type { Report } from './model.js';
import { verdictHeadline, type RunVerdict } from './verdict.js';

/** The verdict word and the notes beside it. */
export function headlineOf(r: Report): { readonly word: RunVerdict; readonly notes: readonly string[] } {
  return verdictHeadline(
    {
      interrupted: r.interrupted,
      abortedBy: r.abortedBy,
      passed: r.passed,
      durationS: r.durationS,
      thresholds: r.thresholds,
      totals: { requests: r.slo.good + r.slo.bad + r.slo.excluded, responses429: r.rateLimit.responses429, headerless429: r.rateLimit.headerless429 ?? 0 },
      streams: { count: r.stream.count, deliveredAtOnce: r.stream.deliveredAtOnce ?? 0 },
      shards: r.shards,
    },
    fmtThresholdValue,
  );
}
