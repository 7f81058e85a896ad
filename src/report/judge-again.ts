/**
 * A report's thresholds judged again after its figures moved (settled 429 verdicts), with its
 * `passed` and `verdict`: the rules of `sections/thresholds.ts`' merge, so a merge that lacks a
 * shard stays PARTIAL and never a pass whatever its thresholds say. Pure.
 */
import { thresholdOfResult, type ParsedThreshold, type ThresholdResult } from '../slo/thresholds.js';
import { evaluateThresholdsOn } from './metrics.js';
import type { Report } from './model.js';
import { reportVerdict } from './verdict.js';

/** Judges `r`'s thresholds again (those this version reads; the others stay as they were). */
export function judgedAgain(r: Report): Report {
  if (r.thresholds.length === 0) return r;
  const parsed: ParsedThreshold[] = [];
  const kept: ThresholdResult[] = [];
  for (const t of r.thresholds) {
    const p = thresholdOfResult(t);
    if (p === undefined) kept.push(t);
    else parsed.push(p);
  }
  const again = evaluateThresholdsOn(r, parsed);
  const thresholds = r.thresholds.map((t) => (thresholdOfResult(t) === undefined ? t : (again.shift() as ThresholdResult)));
  // A merge missing a shard has not passed whatever its thresholds say (sections/thresholds.ts).
  const partial = (r.shards?.missing.length ?? 0) > 0;
  const passed = thresholds.every((t) => t.passed) && !partial;
  return { ...r, thresholds, passed, verdict: reportVerdict({ interrupted: r.interrupted, abortedBy: r.abortedBy, passed, partial }) };
}
