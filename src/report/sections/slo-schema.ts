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
    /**
     * Requests still open when the grace period ended, within their own deadline: unjudged.
     * Present when there were any (absent in older reports).
     */
    cut: count,
    /**
     * With `cut` requests: availability as the range they allow, all of them bad (`low`:
     * good ÷ (good + bad + cut)) to all good (`high`: (good + cut) ÷ (good + bad + cut)). A
     * threshold on availability passes only at its worst end.
     */
    availabilityRange: obj({ low: ratio, high: ratio }),
  },
);

/** `slo`: events against the objective. */
export type SloReport = DeepReadonly<z.output<typeof sloSchema>>;
