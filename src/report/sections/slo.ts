/**
 * `slo`: the run's events against the availability objective. Events add; every ratio is
 * computed again from the merged events (a ratio of sums, never a sum or mean of ratios).
 */
import { z } from 'zod';
import { errorBudget } from '../../slo/budget.js';
import { bySection, fields, recompute, setting, sum, type Rule } from './merge-kit.js';
import type { FullSection, ScopeState } from './project-kit.js';
import { count, nonNegative, nullable, obj, ratio, written, type DeepReadonly } from './schema-kit.js';

/** report@1 `slo`. */
export const sloSchema = obj(
  {
    objective: z.number().gt(0).lt(1),
    good: count,
    bad: count,
    excluded: count,
    /** good / (good + bad); null when there were neither (nothing to judge). */
    availability: nullable(ratio),
    /** errorRatio / (1 − objective): 1.0 = this run spent exactly its share of budget. */
    errorBudgetConsumed: nonNegative,
    /** Observed error ratio / (1 − objective); over one run the same number as `errorBudgetConsumed`. */
    burnRate: nonNegative,
  },
  {
    /** bad / (good + bad); 0 with no events. */
    errorRatio: written(ratio),
    /** Whole bad events the objective allows for this many events. */
    allowedBadEvents: written(count),
  },
);
/** `slo`: events against the objective. */
export type SloReport = DeepReadonly<z.output<typeof sloSchema>>;

/** `slo` from SLI counts. */
export function sloOf(totals: { readonly good: number; readonly bad: number; readonly excluded: number }, objective: number): SloReport {
  const budget = errorBudget({ good: totals.good, bad: totals.bad, objective });
  return {
    objective,
    good: totals.good,
    bad: totals.bad,
    excluded: totals.excluded,
    availability: budget.availability ?? null,
    errorRatio: budget.errorRatio,
    errorBudgetConsumed: budget.budgetConsumed,
    burnRate: budget.burnRate,
    allowedBadEvents: budget.allowedBadEvents,
  };
}

/** The figures of the merged events (objective, good, bad and excluded are merged first). */
const again = <K extends keyof SloReport>(k: K) =>
  recompute<SloReport, SloReport[K]>((m) => sloOf({ good: m.good ?? 0, bad: m.bad ?? 0, excluded: m.excluded ?? 0 }, m.objective as number)[k]);

/** How `slo` merges. */
export const sloMerge: Rule<SloReport> = fields<SloReport>({
  objective: setting({ label: 'the SLO objective' }),
  good: sum,
  bad: sum,
  excluded: sum,
  availability: again('availability'),
  errorRatio: again('errorRatio'),
  errorBudgetConsumed: again('errorBudgetConsumed'),
  burnRate: again('burnRate'),
  allowedBadEvents: again('allowedBadEvents'),
});

/** `slo`: the SLI counts against the objective, merged by the rules above. */
export const sloSection: FullSection<SloReport, object, ScopeState> = { ...bySection(sloMerge), project: (s) => sloOf(s.snapshot.totals, s.objective) };
