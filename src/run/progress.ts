/**
 * Live figures of a running scenario, sampled about once a second for the progress line and
 * the in-flight gauge. Rates are over the last interval, not since the start, so a stall shows.
 */
import type { Clock } from '../core/clock.js';
import type { Collectors } from '../collect/index.js';
import type { Executor } from '../load/index.js';

/** What the progress display shows. */
export interface RunProgress {
  readonly elapsedS: number;
  readonly totalS: number;
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
}

/** Samples live figures; each call measures the rate since the previous one. */
export interface ProgressMeter {
  sample(): RunProgress;
}

/** A meter over the executor's and collectors' live state. */
export function createProgressMeter(deps: {
  clock: Clock;
  runStartNs: number;
  durationMs: number;
  executor: Executor;
  collectors: Collectors;
}): ProgressMeter {
  let lastNs = deps.runStartNs;
  let lastStarted = 0;
  return {
    sample() {
      const now = deps.clock.nowNs();
      const stats = deps.executor.stats();
      const live = deps.collectors.live(now);
      const dtS = (now - lastNs) / 1e9;
      const rate = dtS > 0 ? (stats.started - lastStarted) / dtS : 0;
      lastNs = now;
      lastStarted = stats.started;
      return {
        elapsedS: (now - deps.runStartNs) / 1e9,
        totalS: deps.durationMs / 1000,
        started: stats.started,
        completed: stats.completed,
        dropped: stats.dropped,
        inFlight: stats.inFlight,
        ratePerS: rate,
        p50Ms: live.p50Ms,
        p99Ms: live.p99Ms,
        errors: live.errors,
        responses429: live.responses429,
      };
    },
  };
}
