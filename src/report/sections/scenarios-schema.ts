/**
 * report@1 `scenarios`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `scenarios.ts`; the whole report's schema
 * is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import type { Pct } from '../../collect/histogram.js';
import type { ContractViolationTotals } from '../../collect/contract-violations.js';
import type { ChecksReport } from './checks-schema.js';
import type { IterationsReport } from './iterations-schema.js';
import type { LoadReport } from './load-schema.js';
import type { OpReport } from './ops-schema.js';
import type { RateLimitReport } from './rate-limit-schema.js';
import type { SloReport } from './slo-schema.js';
import type { StreamReport } from './stream-schema.js';
import type { ByOp } from '../../core/ops.js';

// Each scenario's sections have the top level's shapes (documented there, not again).
/** report@1 `scenarios`. */
export const scenariosSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/**
 * `scenarios.<name>` (added in @1): one scenario of a run of several, with its own figures. The
 * schema leaves a scenario's shape to the top level's sections, so its type is put together from
 * theirs.
 */
export interface ScenarioReport {
  readonly load: LoadReport;
  readonly ops: ByOp<OpReport>;
  readonly stream: StreamReport;
  readonly rateLimit: RateLimitReport;
  readonly slo: SloReport;
  readonly contractViolationTotals: ContractViolationTotals;
  readonly iterations?: IterationsReport;
  readonly checks?: ChecksReport;
  readonly steps?: Readonly<Record<string, Pct>>;
  /** Serialised histograms of this scenario, keyed as the top level's (merge stays exact). */
  readonly histograms: Readonly<Record<string, string>>;
}
