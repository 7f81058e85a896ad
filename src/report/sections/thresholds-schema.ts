/**
 * report@1 `thresholds`, `passed` and `verdict`: the zod schema. How the section is projected and
 * merged is in `thresholds.ts`; the whole report's schema is put together in `../report-
 * schema.ts`.
 */
import { z } from 'zod';
import { COMPARATORS } from '../../slo/threshold-grammar.js';
import { bool, num, nullable, obj, str } from './schema-kit.js';

/** report@1 `thresholds[]`. */
export const thresholdSchema = obj(
  {
    metric: str,
    op: z.enum(COMPARATORS),
    /** The limit, in the metric's unit (ms for latencies, ratio 0–1 for percentages). */
    value: num,
    /** What was measured, in the same unit; null when nothing was observed. */
    observed: nullable(num),
    passed: bool,
  },
  {
    /** True for a default the run was judged on because it set no thresholds. */
    implicit: bool,
  },
);

/** report@1 `verdict`. */
export const verdictSchema = z.enum(['PASS', 'FAIL', 'INTERRUPTED', 'ABORTED', 'PARTIAL']);
