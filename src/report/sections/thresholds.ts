/**
 * `thresholds`, `passed` and `verdict`: judged again on the merged report (after every other
 * section), by the rules the shards were judged by, each read back by the threshold grammar
 * (scope and all: `pro:availability` is judged on `scenarios.pro`). A key this version cannot
 * read is a claim it cannot check: it fails, as an unobserved one does. A merge that lacks a
 * shard (`shards.missing`) has not passed, whatever its thresholds say: its verdict is PARTIAL.
 */
import { evaluateThresholdsOn } from '../metrics.js';
import { thresholdOfResult, type ParsedThreshold, type ThresholdResult } from '../../slo/thresholds.js';
import type { Report } from '../model.js';
import { reportVerdict, type RunVerdict } from '../verdict.js';
import type { FullSection, RunState } from './project-kit.js';

/** The thresholds the shards were judged by, each once, to be judged again on the whole. */
function shardThresholds(reports: readonly Pick<Report, 'thresholds'>[]): { parsed: ParsedThreshold[]; unknown: ThresholdResult[] } {
  const seen = new Set<string>();
  const parsed: ParsedThreshold[] = [];
  const unknown: ThresholdResult[] = [];
  for (const r of reports) {
    for (const t of r.thresholds) {
      const id = JSON.stringify([t.metric, t.op, t.value]);
      if (seen.has(id)) continue;
      seen.add(id);
      const threshold = thresholdOfResult(t);
      if (threshold === undefined) unknown.push({ metric: t.metric, op: t.op, value: t.value, observed: null, passed: false });
      else parsed.push(threshold);
    }
  }
  return { parsed, unknown };
}

/** `thresholds`, kind `recompute`: judged again on the merged report. */
export const thresholdsSection: FullSection<readonly ThresholdResult[], Report, RunState> = {
  project: (s) => s.input.thresholds,
  after: true,
  merge(parts, _scope, _key, merged) {
    const { parsed, unknown } = shardThresholds(parts.map((p) => p.value));
    return [...evaluateThresholdsOn(merged as Report, parsed), ...unknown];
  },
};

/** A merge that lacks some of the run's shards: its figures are of part of the load. */
const partial = (merged: Partial<Report>): boolean => (merged.shards?.missing.length ?? 0) > 0;

/** `passed`, kind `recompute`: every threshold judged again passed, and no shard is missing. */
export const passedSection: FullSection<boolean, Report, RunState> = {
  project: (s) => s.input.thresholds.every((t) => t.passed),
  after: true,
  merge: (_parts, _scope, _key, merged) => (merged.thresholds ?? []).every((t) => t.passed) && !partial(merged),
};

/** `verdict`, kind `recompute`: from the merged run's end, its shards and its thresholds. */
export const verdictSection: FullSection<RunVerdict, Report, RunState> = {
  project: (s) => reportVerdict({ interrupted: s.input.interrupted, abortedBy: s.input.abortedBy, passed: s.input.thresholds.every((t) => t.passed) }),
  after: true,
  merge: (_parts, _scope, _key, merged) => reportVerdict({ interrupted: merged.interrupted === true, abortedBy: merged.abortedBy, passed: merged.passed === true, partial: partial(merged) }),
};
