/**
 * Merging the reports of a distributed run's shards into one report of the whole. Pure.
 *
 * Each section of report@1 says how it merges, field by field, in its own module under
 * `sections/` (`sections/section-list.ts` lists them; the rule kinds are in
 * `sections/merge-kit.ts`). Exact where the data allows it: every histogram is decoded and
 * merged bucket by bucket, so merged percentiles equal those of one histogram that saw every
 * sample; counts add; ratios and rates are computed again from the merged figures; slices are
 * aligned on wall time. What a report keeps only as a summary is combined conservatively and
 * documented as such (docs/reports.md): a percentile without its histogram takes its worst
 * shard, the first 429 is the earliest in wall time, recovery time the slowest shard's.
 */
import { REPORT_SCHEMA } from './model.js';
import type { Report } from './model.js';
import { fail, mergeSections, type Part, type Scope } from './sections/merge-kit.js';
import { mergeHistogramMaps } from './sections/merge-histograms.js';
import { REPORT_SECTIONS } from './sections/section-list.js';
import { settleMerged } from './settle-rate-limits.js';

/** Options of `mergeReports`. */
export interface MergeOptions {
  /** How to name each input in error messages (file names); default `report 1`, `report 2`, … */
  readonly names?: readonly string[];
}

/**
 * Merges the reports of the shards of one run. Throws `FlowgaugeError` (`FG_REPORT_INVALID`)
 * when there is nothing to merge, when the reports are of another schema or of different
 * scenarios, executors, objectives, slice lengths or other settings of the run, or when a
 * histogram cannot be read or is missing where a percentile needs it.
 */
export function mergeReports(reports: readonly Report[], options: MergeOptions = {}): Report {
  if (reports.length === 0) fail('nothing to merge: give the report.json of every shard');
  const parts: Part<Report>[] = reports
    .map((report, i) => {
      const name = options.names?.[i] ?? `report ${i + 1}`;
      if (report.schema !== REPORT_SCHEMA) fail(`${name}: schema ${JSON.stringify(report.schema)} is not ${REPORT_SCHEMA}`);
      const startMs = Date.parse(report.startedAt);
      if (!Number.isFinite(startMs) || !Number.isFinite(Date.parse(report.endedAt))) fail(`${name}: startedAt/endedAt are not timestamps`);
      return { value: report, source: { name, startMs, durationS: report.durationS, histograms: report.histograms } };
    })
    .sort((a, b) => a.source.startMs - b.source.startMs);
  const sources = parts.map((p) => p.source);
  const scope: Scope = { startMs: Math.min(...sources.map((s) => s.startMs)), histograms: mergeHistogramMaps(sources), sources };
  // The 429s are judged again on the union of the parts' evidence, not added up verdict by verdict.
  return settleMerged(mergeSections(REPORT_SECTIONS, parts, scope), parts);
}
