/**
 * Schedule lag (actual start − intended start) in an HDR histogram of microseconds, so memory
 * stays flat however long the run and percentiles stay exact to 3 significant digits.
 */
import type { Histogram } from 'hdr-histogram-js';
import { buildInt32Histogram } from '../collect/hdr-library.js';
import type { PctMs } from './types.js';

/** Records lags and summarises them in ms. */
export interface LagRecorder {
  /** Records one lag in ns (negative lags count as 0). */
  record(lagNs: number): void;
  summary(): PctMs;
  readonly histogram: Histogram;
}

const EMPTY: PctMs = Object.freeze({ p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, count: 0 });

/** Creates an empty recorder (JS histogram: no WebAssembly start-up, auto-resizing past 1 min). */
export function createLagRecorder(): LagRecorder {
  const histogram = buildInt32Histogram({
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });
  return {
    histogram,
    record(lagNs) {
      histogram.recordValue(lagNs > 0 ? Math.round(lagNs / 1000) : 0);
    },
    summary() {
      const count = histogram.totalCount;
      if (count === 0) return EMPTY;
      const ms = (p: number): number => histogram.getValueAtPercentile(p) / 1000;
      return {
        p50: ms(50),
        p90: ms(90),
        p95: ms(95),
        p99: ms(99),
        p999: ms(99.9),
        max: histogram.maxValue / 1000,
        mean: histogram.mean / 1000,
        count,
      };
    },
  };
}
