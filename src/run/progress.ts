/**
 * Live figures of a running run, sampled about once a second for the progress line, the
 * in-flight gauge and the live dashboard. Rates are over the last interval, not since the
 * start, so a stall shows.
 */
import type { ThresholdResult } from '../slo/index.js';

/** What a tick observer receives. Plain data. */
export interface RunProgress {
  readonly elapsedS: number;
  readonly totalS: number;
  /** Starts of the schedule (requests, or iterations for journeys). */
  readonly started: number;
  readonly completed: number;
  readonly dropped: number;
  readonly inFlight: number;
  /** Starts per second over the last interval. */
  readonly ratePerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly responses429: number;
  /** Requests completed (journeys send several per start). */
  readonly requests?: number;
  readonly good?: number;
  readonly bad?: number;
  readonly excluded?: number;
  /** good / (good + bad); null before any. */
  readonly availability?: number | null;
  /** Journey iterations ended and failed so far, when the run has journeys. */
  readonly iterations?: { readonly ended: number; readonly failed: number };
  /**
   * The run's thresholds judged on the live figures (one process; a run over worker threads
   * judges them on the merged report at the end, so merged progress has none).
   */
  readonly thresholds?: readonly ThresholdResult[];
}

const sum = (parts: readonly RunProgress[], f: (p: RunProgress) => number | undefined): number => parts.reduce((n, p) => n + (f(p) ?? 0), 0);

/**
 * The progress of a run split over workers: counts and rates add up; percentiles cannot be
 * merged from percentiles, so p50/p99 are the slowest worker's (the report merges them exactly).
 */
export function mergeProgress(parts: readonly RunProgress[]): RunProgress | undefined {
  if (parts.length === 0) return undefined;
  const good = sum(parts, (p) => p.good);
  const bad = sum(parts, (p) => p.bad);
  const withIterations = parts.filter((p) => p.iterations !== undefined);
  return {
    elapsedS: Math.max(...parts.map((p) => p.elapsedS)),
    totalS: Math.max(...parts.map((p) => p.totalS)),
    started: sum(parts, (p) => p.started),
    completed: sum(parts, (p) => p.completed),
    dropped: sum(parts, (p) => p.dropped),
    inFlight: sum(parts, (p) => p.inFlight),
    ratePerS: sum(parts, (p) => p.ratePerS),
    p50Ms: Math.max(...parts.map((p) => p.p50Ms)),
    p99Ms: Math.max(...parts.map((p) => p.p99Ms)),
    errors: sum(parts, (p) => p.errors),
    responses429: sum(parts, (p) => p.responses429),
    requests: sum(parts, (p) => p.requests ?? p.completed),
    good,
    bad,
    excluded: sum(parts, (p) => p.excluded),
    availability: good + bad === 0 ? null : good / (good + bad),
    ...(withIterations.length > 0
      ? { iterations: { ended: sum(withIterations, (p) => p.iterations?.ended), failed: sum(withIterations, (p) => p.iterations?.failed) } }
      : {}),
  };
}
