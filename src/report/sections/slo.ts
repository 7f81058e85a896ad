/**
 * `slo`: the run's events against the availability objective. Events add; every ratio is
 * computed again from the merged events (a ratio of sums, never a sum or mean of ratios).
 */
import { errorBudget } from '../../slo/budget.js';
import { bySection, fields, recompute, setting, sum, type Rule } from './merge-kit.js';
import type { FullSection, ScopeState } from './project-kit.js';
import type { SloReport } from './slo-schema.js';

/** `slo` from SLI counts (and the requests cut unjudged, when there were any). */
export function sloOf(totals: { readonly good: number; readonly bad: number; readonly excluded: number; readonly cut?: number }, objective: number): SloReport {
  const budget = errorBudget({ good: totals.good, bad: totals.bad, objective });
  const cut = totals.cut ?? 0;
  const all = totals.good + totals.bad + cut;
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
    ...(cut > 0 ? { cut, availabilityRange: { low: totals.good / all, high: (totals.good + cut) / all } } : {}),
  };
}

/** The figures of the merged events (objective, good, bad and excluded are merged first). */
const again = <K extends keyof SloReport>(k: K) =>
  recompute<SloReport, SloReport[K]>((m) => sloOf({ good: m.good ?? 0, bad: m.bad ?? 0, excluded: m.excluded ?? 0, cut: m.cut ?? 0 }, m.objective as number)[k]);

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
  cut: sum,
  availabilityRange: again('availabilityRange'),
});

/** `slo`: the SLI counts against the objective, merged by the rules above. */
export const sloSection: FullSection<SloReport, object, ScopeState> = { ...bySection(sloMerge), project: (s) => sloOf(s.snapshot.totals, s.objective) };
