/**
 * report@1 `slo`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `slo.ts`; the whole report's schema is put
 * together in `../report-schema.ts`.
 */
import { z } from 'zod';
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
