/**
 * Per-operation statistics: latency from the intended start (no coordinated omission),
 * SLI counts, statuses and error codes.
 */
import type { RequestSample, SliClass } from '../core/types.js';
import { createLatencyHistogram, encodeHistogram, recordNs, toPct } from './histogram.js';
import type { LatencyHistogram, Pct } from './histogram.js';

/** One operation's figures, as report.json `ops.<op>`. */
export interface OpSnapshot {
  readonly count: number;
  readonly good: number;
  readonly bad: number;
  readonly excluded: number;
  /** Responses by HTTP status code (requests with no response are only in `errors`). */
  readonly statuses: Record<string, number>;
  /** Samples by `ErrorCode`. */
  readonly errors: Record<string, number>;
  readonly latencyMs: Pct;
}

/** Accumulator of one operation. */
export interface OpStats {
  observe(sample: RequestSample, sli: SliClass): void;
  snapshot(): OpSnapshot;
  /** Serialised latency histogram. */
  encoded(): string;
  /** The live latency histogram; do not record into it. */
  readonly histogram: LatencyHistogram;
}

/** Creates the accumulator of one operation. */
export function createOpStats(): OpStats {
  const histogram = createLatencyHistogram();
  const statuses = new Map<string, number>();
  const errors = new Map<string, number>();
  const counts = { count: 0, good: 0, bad: 0, excluded: 0 };
  return {
    histogram,
    observe(sample, sli) {
      counts.count++;
      counts[sli]++;
      recordNs(histogram, sample.endNs - sample.intendedNs);
      if (sample.status > 0) {
        const k = String(sample.status);
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
      }
      if (sample.errorCode !== undefined) errors.set(sample.errorCode, (errors.get(sample.errorCode) ?? 0) + 1);
    },
    snapshot: () => ({
      ...counts,
      statuses: Object.fromEntries(statuses),
      errors: Object.fromEntries(errors),
      latencyMs: toPct(histogram),
    }),
    encoded: () => encodeHistogram(histogram),
  };
}
