/**
 * Pure figures of the benchmark: percentiles of small sample arrays, arrivals per time bucket
 * and their coefficient of variation, medians and ratios. Tested in test/bench.
 */

/** Percentile summary of a sample array (nearest rank), in the samples' unit. */
export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentiles of `values` (all zero when empty). Does not modify `values`. */
export function percentiles(values: readonly number[]): Percentiles {
  const n = values.length;
  if (n === 0) return { count: 0, p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (p: number): number => sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))] as number;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { count: n, p50: at(50), p90: at(90), p99: at(99), max: sorted[n - 1] as number, mean: sum / n };
}

/** Counts of `stamps` (ms) per bucket of `bucketMs`, over [fromMs, toMs) (whole buckets only). */
export function bucketCounts(stamps: readonly number[], bucketMs: number, fromMs: number, toMs: number): number[] {
  const buckets = Math.floor((toMs - fromMs) / bucketMs);
  const counts = new Array<number>(Math.max(0, buckets)).fill(0);
  for (const t of stamps) {
    if (t < fromMs) continue;
    const b = Math.floor((t - fromMs) / bucketMs);
    if (b < buckets) counts[b] = (counts[b] as number) + 1;
  }
  return counts;
}

/** Mean and coefficient of variation (population standard deviation ÷ mean) of `xs`. */
export function meanCv(xs: readonly number[]): { mean: number; cv: number } {
  if (xs.length === 0) return { mean: 0, cv: 0 };
  let sum = 0;
  for (const x of xs) sum += x;
  const mean = sum / xs.length;
  let sq = 0;
  for (const x of xs) sq += (x - mean) ** 2;
  const sd = Math.sqrt(sq / xs.length);
  return { mean, cv: mean === 0 ? 0 : sd / mean };
}

/** What the server saw of an arrival stream, over its steady middle. */
export interface ArrivalFigures {
  /** Arrivals per second over the window. */
  readonly ratePerS: number;
  /** Coefficient of variation of arrivals per bucket. */
  readonly cv: number;
  /** Largest bucket ÷ mean bucket (a burst shows as a high peak). */
  readonly peakToMean: number;
  readonly bucketMs: number;
  readonly windowS: number;
  readonly arrivals: number;
}

/**
 * Figures of arrival stamps (ms, one clock): the window starts `trimStartMs` after the first
 * arrival and ends `trimEndMs` before the last, so start-up and wind-down are left out for
 * every tool alike. With `durationMs` (the tool's planned run), the start is counted from no
 * earlier than `durationMs` before the last arrival: a request the tool sends before its
 * schedule begins (a run's preparation) would otherwise open the window on a gap.
 */
export function arrivalFigures(stamps: readonly number[], bucketMs: number, trimStartMs: number, trimEndMs: number, durationMs?: number): ArrivalFigures {
  if (stamps.length === 0) return { ratePerS: 0, cv: 0, peakToMean: 0, bucketMs, windowS: 0, arrivals: 0 };
  let first = Infinity;
  let last = -Infinity;
  for (const t of stamps) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  const from = (durationMs === undefined ? first : Math.max(first, last - durationMs)) + trimStartMs;
  const buckets = Math.max(0, Math.floor((last - trimEndMs - from) / bucketMs));
  const counts = bucketCounts(stamps, bucketMs, from, from + buckets * bucketMs);
  const { mean, cv } = meanCv(counts);
  const arrivals = counts.reduce((a, b) => a + b, 0);
  const windowS = (buckets * bucketMs) / 1000;
  return {
    ratePerS: windowS > 0 ? arrivals / windowS : 0,
    cv,
    peakToMean: mean > 0 ? Math.max(...counts) / mean : 0,
    bucketMs,
    windowS,
    arrivals,
  };
}

/** Median of `xs` (NaN when empty). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Median of the values that were measured (finite), undefined when none was. */
export function medianOf(xs: readonly (number | undefined)[]): number | undefined {
  const v = xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length > 0 ? median(v) : undefined;
}

/** Largest of the values that were measured (finite), undefined when none was. */
export function maxOf(xs: readonly (number | undefined)[]): number | undefined {
  const v = xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length > 0 ? Math.max(...v) : undefined;
}

/** A median with the spread it came from: the smallest and largest value, and how many there were. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** The median and range of the values that were measured (finite), undefined when none was. */
export function spreadOf(xs: readonly (number | undefined)[]): Spread | undefined {
  const v = xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
  if (v.length === 0) return undefined;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length };
}

/** a ÷ b, or undefined when either is missing or b is 0. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return undefined;
  return a / b;
}
