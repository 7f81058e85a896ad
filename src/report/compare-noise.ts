/**
 * What the samples of two runs can support. A compared figure carries its sample counts, and a
 * difference the samples cannot support is `inconclusive`, not a regression:
 *
 * - **too few samples for the statistic**: a percentile needs at least `MIN_TAIL` samples beyond
 *   it (p99: 500 samples, p90: 50, p50: 10); with 3 requests a p99 is the slowest of three;
 * - **within the run's own spread**: each run's time slices give the statistic once per slice
 *   (slices of at least `MIN_SLICE_SAMPLES`); a difference within twice the combined standard
 *   error of the slice values (stdev / √slices, both runs) is what the runs vary by on their own;
 * - for ratios (availability, errors.rate), within twice the binomial standard error of the
 *   pooled ratio.
 *
 * Runs of different scenarios, executors or target rates are not comparable at all. Pure.
 */
import { decodeHistogram, toPct } from '../collect/histogram.js';
import { isOpName } from '../core/ops.js';
import { streamTimingOf } from '../core/stream-timings.js';
import { parseMetricKey, type MetricKey } from '../slo/threshold-grammar.js';
import type { Report } from './model.js';

/** Samples a percentile needs beyond it before two of them can be compared. */
export const MIN_TAIL = 5;
/** Samples a time slice needs to give its own value of a statistic. */
export const MIN_SLICE_SAMPLES = 5;
/** Slices a run needs before its spread is known. */
export const MIN_SLICES = 3;
/** Target rates further apart than this share make runs not comparable. */
export const RATE_TOLERANCE = 0.05;

const STAT_QUANTILE: Readonly<Record<string, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999, max: 0.99 };

/** Samples behind a figure of `report`: requests of the op, stream timings, requests judged. */
export function samplesOf(report: Report, key: string): number {
  const m = parseMetricKey(key);
  if (key === 'load.achievedRatePerS' || m === undefined) return report.load.started;
  switch (m.kind) {
    case 'latency':
      return report.ops[m.op]?.latencyMs.count ?? 0;
    case 'requests':
      return report.ops[m.op]?.count ?? 0;
    case 'ratelimitLatency':
      return report.rateLimit.latencyMs?.count ?? 0;
    case 'stream': {
      const pct = report.stream[streamTimingOf(m.metric).field] as { count?: number } | undefined;
      return pct?.count ?? 0;
    }
    case 'availability':
      return report.slo.good + report.slo.bad;
    default:
      return report.slo.good + report.slo.bad + report.slo.excluded;
  }
}

/** Samples a statistic needs before a change in it means anything; 0 when any count will do. */
export function minSamplesFor(key: string): number {
  const m = parseMetricKey(key);
  if (m === undefined) return 0;
  if (m.kind === 'latency' || m.kind === 'stream' || m.kind === 'ratelimitLatency') {
    const q = STAT_QUANTILE[m.stat];
    if (q === undefined) return m.stat === 'mean' ? 2 * MIN_TAIL : 0;
    return Math.ceil(MIN_TAIL / (1 - q) - 1e-9);
  }
  if (m.kind === 'availability' || m.kind === 'errorsRate' || (m.kind === 'requests' && m.counter === 'errorsRate')) return 2 * MIN_TAIL;
  return 0;
}

/** The statistic of `key` in each slice with enough samples (latencies of the operations only: slices keep no `http:` rows; ms). */
export function sliceValues(report: Report, key: string): number[] {
  const m = parseMetricKey(key);
  if (m === undefined || m.kind !== 'latency' || m.stat === 'count' || !isOpName(m.op)) return [];
  const out: number[] = [];
  for (const s of report.slices ?? []) {
    const op = s.ops[m.op];
    // `count` holds the op's 429s too; the histogram only its served answers.
    if (op === undefined || op.count < MIN_SLICE_SAMPLES) continue;
    try {
      const h = decodeHistogram(op.latency);
      if (h.totalCount >= MIN_SLICE_SAMPLES) out.push(toPct(h)[m.stat]);
    } catch {
      // A slice that cannot be read tells nothing about the spread.
    }
  }
  return out;
}

function standardError(values: readonly number[]): number | undefined {
  if (values.length < MIN_SLICES) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance / values.length);
}

/** What the samples say about one compared figure. */
export interface NoiseJudgement {
  readonly baselineSamples: number;
  readonly currentSamples: number;
  /** Why the difference cannot be told from noise; undefined when it can. */
  readonly inconclusive: string | undefined;
}

/** Judges whether the change of `key` from `b` to `c` is more than the samples' noise. */
export function judgeNoise(baseline: Report, current: Report, key: string, b: number, c: number): NoiseJudgement {
  const nb = samplesOf(baseline, key);
  const nc = samplesOf(current, key);
  const judged = (inconclusive: string | undefined): NoiseJudgement => ({ baselineSamples: nb, currentSamples: nc, inconclusive });
  const need = minSamplesFor(key);
  if (Math.min(nb, nc) < need) return judged(`too few samples: ${nb} and ${nc}, a ${key.split('.').at(-1)} needs ${need}`);
  const m: MetricKey | undefined = parseMetricKey(key);
  if (m !== undefined && (m.kind === 'availability' || m.kind === 'errorsRate')) {
    const pooled = (b * nb + c * nc) / (nb + nc);
    const se = Math.sqrt((pooled * (1 - pooled) * (1 / nb + 1 / nc)));
    if (Math.abs(c - b) <= 2 * se) return judged(`within the samples' binomial noise (±${(2 * se * 100).toFixed(3)}pp)`);
    return judged(undefined);
  }
  const seB = standardError(sliceValues(baseline, key));
  const seC = standardError(sliceValues(current, key));
  if (seB !== undefined && seC !== undefined) {
    const noise = 2 * Math.sqrt(seB ** 2 + seC ** 2);
    if (Math.abs(c - b) <= noise) return judged(`within the runs' own spread over time (±${noise.toFixed(1)}ms)`);
  }
  return judged(undefined);
}

/** Why two runs cannot be compared at all: different scenarios, executors or target rates. */
export function incomparability(baseline: Report, current: Report): string[] {
  const out: string[] = [];
  if (baseline.scenario !== current.scenario) out.push(`the scenarios differ: baseline "${baseline.scenario}", current "${current.scenario}"`);
  if (baseline.load.executor !== current.load.executor) out.push(`the executors differ: baseline ${baseline.load.executor}, current ${current.load.executor}`);
  const rb = baseline.load.targetRatePerS;
  const rc = current.load.targetRatePerS;
  if (rb !== null && rc !== null && Math.abs(rb - rc) > RATE_TOLERANCE * Math.max(rb, rc)) {
    out.push(`the target rates differ: baseline ${rb}/s, current ${rc}/s`);
  }
  return out;
}
