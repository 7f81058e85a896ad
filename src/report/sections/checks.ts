/**
 * `checks` (journeys): by check name, passes and fails add; the examples are the first distinct
 * ones of the shards, at most as many as the writer keeps.
 */
import { mergeCheckExamples, type CheckCounts, type CheckExample } from '../../collect/iteration-stats.js';
import { bySection, custom, each, fields, sum, type Rule } from './merge-kit.js';
import type { FullSection, ScopeState } from './project-kit.js';
import type { ChecksReport } from './checks-schema.js';
import { checksViews } from './checks-views.js';

const checkMerge = fields<CheckCounts>({
  passes: sum,
  fails: sum,
  examples: custom<readonly CheckExample[]>('union', (parts) => mergeCheckExamples(parts.map((p) => p.value))),
});

/** How `checks` merges: each check by name (kind `each`), in order of appearance. */
export const checksMerge: Rule<ChecksReport> = each(() => checkMerge);

/** `checks` of several parts (the same rules, without a report around them). */
export function mergeChecks(parts: readonly (ChecksReport | undefined)[]): ChecksReport | undefined {
  const present = parts.flatMap((value, i) => (value === undefined ? [] : [{ value, source: { name: `part ${i + 1}`, startMs: 0, durationS: 0, histograms: {} } }]));
  if (present.length === 0) return undefined;
  return checksMerge.merge(present, { scope: { startMs: 0, histograms: {}, sources: present.map((p) => p.source) }, path: 'checks', key: 'checks', parents: present.length });
}

/** `checks`: the journeys' checks, present when journeys ran and checked something. */
export const checksSection: FullSection<ChecksReport, object, ScopeState> = {
  ...bySection(checksMerge),
  project: (s) => (s.iterations !== undefined && Object.keys(s.iterations.checks).length > 0 ? s.iterations.checks : undefined),
  views: checksViews,
};
