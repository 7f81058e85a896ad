/**
 * report@1 `contractViolations` and `contractViolationTotals`: the zod schema. How the section is
 * projected and merged is in `contract-violations.ts`; the whole report's schema is put together
 * in `../report-schema.ts`.
 */
import { z } from 'zod';
import { OPS } from '../../core/ops.js';
import { count, obj, str } from './schema-kit.js';

/** report@1 `contractViolations[]`. */
export const violationSchema = obj({ op: z.enum(OPS), path: str, expected: str, got: str, count });

/** report@1 `contractViolationTotals`. */
export const violationTotalsSchema = obj({
  /** Every violation seen. */
  total: count,
  /** Distinct violations not kept in the table because it was full. */
  droppedDistinct: count,
  /** Occurrences of those. */
  droppedCount: count,
});
