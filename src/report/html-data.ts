/**
 * The data behind the charts of report.html, extracted from a report: per-slice latency
 * percentiles decoded from the slices' serialised histograms, percentile curves of the stream
 * timings, request rate against 429s and the advertised limit, and the error budget spent over
 * time. Plain arrays, ready to be embedded as JSON and drawn by uPlot in the page. Pure.
 */
import { OPS } from '../core/ops.js';
import type { OpName } from '../core/ops.js';
import { plainStreamLabel, streamTimingKey, streamTimingOf } from '../core/stream-timings.js';
import { decodeHistogram, mergeInto, toPct } from '../collect/histogram.js';
import type { LatencyHistogram } from '../collect/histogram.js';
import type { RateLimitReport, Report } from './model.js';

/** p50/p90/p99 of one operation per (possibly grouped) slice; null where it had no request. */
export interface LatencyChartData {
  readonly op: OpName;
  /** Start of each point, seconds since the run's start. */
  readonly t: number[];
  readonly p50: (number | null)[];
  readonly p90: (number | null)[];
  readonly p99: (number | null)[];
}

/**
 * A percentile curve (HdrHistogram's percentile distribution plot): `x` is the number of nines
 * of the percentile, −log10(1 − p), so 1 is p90, 2 is p99, 3 is p99.9; `y` the value in ms.
 */
export interface DistributionChartData {
  /** `stream.ttft`, `stream.itl`, … (the key of `histograms`). */
  readonly key: string;
  readonly label: string;
  readonly count: number;
  readonly x: number[];
  readonly y: number[];
}

/** Requests and 429s per second over time, with the advertised limit converted to per second. */
export interface RateChartData {
  readonly t: number[];
  readonly requestsPerS: number[];
  readonly responses429PerS: number[];
  /** The advertised limit per second; null when no limit was advertised. */
  readonly limitPerS: number | null;
  /** The limit as advertised and how it was converted, for the legend. */
  readonly limitLabel: string;
}

/**
 * The run's error budget spent so far, after each slice: bad events so far ÷ the bad events the
 * objective allows for all the run's events, so the curve ends at `slo.errorBudgetConsumed`
 * (1 = all of it) and its slope shows when the budget went.
 */
export interface BudgetChartData {
  readonly t: number[];
  readonly consumed: number[];
}

/**
 * The last point of the time charts when it stands for less time than the others: the schedule
 * ended inside its slice (a 4.5 s run's fifth second holds half a second of arrivals). Its rate is
 * per second of that part, and the page shades the part, so it reads as partial, not a collapse.
 */
export interface PartialPoint {
  /** Its start (the x of the last point), in seconds since the run's start. */
  readonly fromS: number;
  /** Where the schedule ended inside it. */
  readonly toS: number;
}

/** Everything the page draws. Empty arrays or null mean "no chart": the page says why instead. */
export interface HtmlChartData {
  /** Seconds per point (a slice, or several merged when the run is long). */
  readonly stepS: number;
  /** The last point when it is partial; null when it covers a whole step. */
  readonly partial: PartialPoint | null;
  readonly latency: LatencyChartData[];
  readonly distributions: DistributionChartData[];
  readonly rate: RateChartData | null;
  readonly budget: BudgetChartData | null;
}

/** Most points a time chart gets; longer runs merge neighbouring slices (exactly, bucket by bucket). */
export const MAX_POINTS = 1200;

/** Stream timings drawn as distributions, in order: the two the service's users feel. */
const DISTRIBUTIONS: readonly (readonly [string, string])[] = (['ttft', 'itl'] as const).map((n) => [
  streamTimingKey(n),
  plainStreamLabel(streamTimingOf(n)),
]);

/** Percentile curves go to five nines at most; beyond the sample count they only repeat the max. */
const MAX_NINES = 5;
const NINES_STEP = 0.1;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Decodes a serialised histogram, or undefined when it is malformed (the chart leaves a gap). */
function tryDecode(s: string): LatencyHistogram | undefined {
  try {
    return decodeHistogram(s);
  } catch {
    return undefined;
  }
}

function latencyCharts(report: Report, group: number, sliceS: number): LatencyChartData[] {
  const seen = new Set<OpName>();
  for (const s of report.slices) for (const op of Object.keys(s.ops)) seen.add(op as OpName);
  const ops = OPS.filter((op) => seen.has(op));
  const charts: LatencyChartData[] = [];
  for (const op of ops) {
    const chart: LatencyChartData = { op, t: [], p50: [], p90: [], p99: [] };
    for (let i = 0; i < report.slices.length; i += group) {
      let merged: LatencyHistogram | undefined;
      for (const s of report.slices.slice(i, i + group)) {
        const enc = s.ops[op]?.latency;
        const h = enc === undefined ? undefined : tryDecode(enc);
        if (h === undefined) continue;
        if (merged === undefined) merged = h;
        else mergeInto(merged, h);
      }
      const pct = merged === undefined ? undefined : toPct(merged);
      const has = pct !== undefined && pct.count > 0;
      chart.t.push(round3(i * sliceS));
      chart.p50.push(has ? pct.p50 : null);
      chart.p90.push(has ? pct.p90 : null);
      chart.p99.push(has ? pct.p99 : null);
    }
    charts.push(chart);
  }
  return charts;
}

/** The percentile curve of one histogram (µs recorded, ms drawn). */
export function percentileCurve(h: LatencyHistogram): { x: number[]; y: number[] } {
  const total = h.totalCount;
  if (total === 0) return { x: [], y: [] };
  // Past log10(count) nines every percentile is the maximum: stop one step after it.
  const lastNines = Math.min(MAX_NINES, Math.ceil(Math.log10(total) / NINES_STEP) * NINES_STEP + NINES_STEP);
  const x: number[] = [];
  const y: number[] = [];
  for (let k = 0; k * NINES_STEP <= lastNines + 1e-9; k++) {
    const nines = round3(k * NINES_STEP);
    const p = 100 * (1 - 10 ** -nines);
    x.push(nines);
    y.push(round3(h.getValueAtPercentile(p) / 1000));
  }
  return { x, y };
}

function distributionCharts(report: Report): DistributionChartData[] {
  const out: DistributionChartData[] = [];
  for (const [key, label] of DISTRIBUTIONS) {
    const enc = report.histograms[key];
    const h = enc === undefined ? undefined : tryDecode(enc);
    if (h === undefined || h.totalCount === 0) continue;
    out.push({ key, label, count: h.totalCount, ...percentileCurve(h) });
  }
  return out;
}

/** Usual rate-limit window lengths, in seconds. */
const WINDOW_LENGTHS_S = [1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 86_400] as const;

/**
 * Length of a rate-limit window in seconds, as the report lets us see it: for epoch Reset
 * values the typical gap between consecutive windows, for delta values the largest delta seen rounded up to a usual window length;
 * otherwise 60 s, the window of the interface's published tiers (requests per minute).
 */
export function inferWindowS(rl: RateLimitReport): { seconds: number; inferred: boolean } {
  const resets = rl.windows.map((w) => Number(w.reset)).filter((n) => Number.isFinite(n) && n > 0);
  if (rl.resetSemantics === 'epoch-seconds' && resets.length >= 2) {
    const gaps = resets
      .slice(1)
      .map((r, i) => r - (resets[i] as number))
      .filter((g) => g > 0)
      .sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)];
    if (median !== undefined) return { seconds: median, inferred: true };
  }
  if (rl.resetSemantics === 'delta-seconds' && resets.length > 0) {
    // A run may start mid-window, so the largest delta seen can fall short of the window:
    // round it up to the next usual window length.
    const largest = Math.max(...resets);
    const seconds = WINDOW_LENGTHS_S.find((w) => w >= largest) ?? Math.ceil(largest);
    return { seconds, inferred: true };
  }
  return { seconds: 60, inferred: false };
}

/**
 * The last point, when the schedule (`load.scheduleS`; the run's duration in reports without it)
 * ended inside it. Slices after the schedule's end (a journey's steps that follow it) make the
 * last point a whole one again: their requests were not on the schedule.
 */
function partialPoint(report: Report, group: number, sliceS: number): PartialPoint | null {
  const n = report.slices.length;
  if (n === 0) return null;
  const fromS = Math.floor((n - 1) / group) * group * sliceS;
  const endS = report.load.scheduleS ?? report.durationS;
  const eps = 1e-6;
  return endS > fromS + eps && endS < fromS + group * sliceS - eps ? { fromS: round3(fromS), toS: round3(endS) } : null;
}

function rateChart(report: Report, group: number, sliceS: number, partial: PartialPoint | null): RateChartData | null {
  if (report.slices.length === 0) return null;
  const stepS = group * sliceS;
  const t: number[] = [];
  const requestsPerS: number[] = [];
  const responses429PerS: number[] = [];
  for (let i = 0; i < report.slices.length; i += group) {
    const part = report.slices.slice(i, i + group);
    // The last group may be short, and the schedule may end inside it: divide by the time it covers.
    const last = i + group >= report.slices.length;
    const coveredS = last && partial !== null ? partial.toS - partial.fromS : part.length * sliceS;
    t.push(round3(i * sliceS));
    requestsPerS.push(round3(part.reduce((n, s) => n + s.requests, 0) / coveredS));
    responses429PerS.push(round3(part.reduce((n, s) => n + s.responses429, 0) / coveredS));
  }
  const limit = report.rateLimit.advertisedLimit;
  if (limit === null) {
    return { t, requestsPerS, responses429PerS, limitPerS: null, limitLabel: `no limit advertised (step ${stepS} s)` };
  }
  const w = inferWindowS(report.rateLimit);
  const perS = round3(limit / w.seconds);
  const how = w.inferred ? `a ${w.seconds} s window (from X-RateLimit-Reset)` : `an assumed ${w.seconds} s window`;
  return { t, requestsPerS, responses429PerS, limitPerS: perS, limitLabel: `advertised ${limit} per window = ${perS}/s over ${how}` };
}

function budgetChart(report: Report, group: number, sliceS: number, partial: PartialPoint | null): BudgetChartData | null {
  if (report.slices.length === 0) return null;
  const events = report.slices.reduce((n, s) => n + s.good + s.bad, 0);
  const allowedBad = events * (1 - report.slo.objective);
  const t: number[] = [];
  const consumed: number[] = [];
  let bad = 0;
  for (let i = 0; i < report.slices.length; i++) {
    const s = report.slices[i];
    if (s === undefined) continue;
    bad += s.bad;
    const last = i === report.slices.length - 1;
    if ((i + 1) % group !== 0 && !last) continue;
    // The last point is where the schedule ended, not the end of its slice.
    t.push(last && partial !== null ? partial.toS : round3((i + 1) * sliceS));
    consumed.push(allowedBad === 0 ? 0 : Math.round((bad / allowedBad) * 1e6) / 1e6);
  }
  return { t, consumed };
}

/** Extracts the chart data of `report`. */
export function buildChartData(report: Report): HtmlChartData {
  const sliceS = (report.sliceMs ?? 1000) / 1000;
  const group = Math.max(1, Math.ceil(report.slices.length / MAX_POINTS));
  const partial = partialPoint(report, group, sliceS);
  return {
    stepS: round3(group * sliceS),
    partial,
    latency: latencyCharts(report, group, sliceS),
    distributions: distributionCharts(report),
    rate: rateChart(report, group, sliceS, partial),
    budget: budgetChart(report, group, sliceS, partial),
  };
}
