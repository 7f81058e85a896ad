/**
 * `slo`: the run's events against the availability objective. Events add; every ratio is
 * computed again from the merged events (a ratio of sums, never a sum or mean of ratios).
 */
import { z } from 'zod';
import { sloSection } from '../build-report.js';
import type { SloReport } from '../model.js';
import { fields, recompute, setting, sum, type Rule } from './merge-kit.js';
import { count, nonNegative, nullable, obj, ratio } from './schema-kit.js';

/** report@1 `slo`. */
export const sloSchema = obj(
  {
    objective: z.number().gt(0).lt(1),
    good: count,
    bad: count,
    excluded: count,
    availability: nullable(ratio),
    errorBudgetConsumed: nonNegative,
    burnRate: nonNegative,
  },
  { errorRatio: ratio, allowedBadEvents: count },
);

/** The figures of the merged events (objective, good, bad and excluded are merged first). */
const again = <K extends keyof SloReport>(k: K) =>
  recompute<SloReport, SloReport[K]>((m) => sloSection({ good: m.good ?? 0, bad: m.bad ?? 0, excluded: m.excluded ?? 0 }, m.objective as number)[k]);

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
