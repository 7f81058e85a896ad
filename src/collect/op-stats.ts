/**
 * Per-operation statistics: latency from the intended start (no coordinated omission),
 * SLI counts, statuses and error codes. Latency is of the answers the service served: a 429
 * (a refusal by the rate limiter) counts as a request of its operation and shows in `statuses`,
 * but its latency goes to the collectors' `ratelimit.latency`, not here (docs/measuring.md).
 */
import type { RequestSample, SliClass } from '../core/types.js';
import { createLatencyHistogram, encodeHistogram, recordNs, toPct } from './histogram.js';
import type { LatencyHistogram, Pct } from './histogram.js';
import { createPhaseStats, type PhasesSnapshot } from './request-phases.js';

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
  /** Latency of the served answers: every sample but a 429 (its `count` is `count` less the 429s). */
  readonly latencyMs: Pct;
  /** Where the time went, for requests that reached a connection (absent when none did). */
  readonly phases?: PhasesSnapshot;
}

/** Accumulator of one operation. */
export interface OpStats {
  observe(sample: RequestSample, sli: SliClass): void;
  snapshot(): OpSnapshot;
  /** Serialised latency histogram (served answers: no 429). */
  encoded(): string;
  /** Serialised phase histograms, keyed `<op>.phase.<name>`. */
  phaseHistograms(op: string): Record<string, string>;
  /** The live latency histogram; do not record into it. */
  readonly histogram: LatencyHistogram;
}

/** Creates the accumulator of one operation. */
export function createOpStats(): OpStats {
  const histogram = createLatencyHistogram();
  const statuses = new Map<string, number>();
  const errors = new Map<string, number>();
  const counts = { count: 0, good: 0, bad: 0, excluded: 0 };
  const phases = createPhaseStats();
  return {
    histogram,
    observe(sample, sli) {
      counts.count++;
      counts[sli]++;
      // A refusal by the rate limiter is no latency of the service's work (collectors keep it apart).
      if (sample.status !== 429) recordNs(histogram, sample.endNs - sample.intendedNs);
      phases.observe(sample);
      if (sample.status > 0) {
        const k = String(sample.status);
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
      }
      if (sample.errorCode !== undefined) errors.set(sample.errorCode, (errors.get(sample.errorCode) ?? 0) + 1);
    },
    snapshot: () => {
      const p = phases.snapshot();
      return {
        ...counts,
        statuses: Object.fromEntries(statuses),
        errors: Object.fromEntries(errors),
        latencyMs: toPct(histogram),
        ...(p === undefined ? {} : { phases: p }),
      };
    },
    encoded: () => encodeHistogram(histogram),
    phaseHistograms: (op) => phases.histograms(op),
  };
}
