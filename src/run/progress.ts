/**
 * Live figures of a running run, sampled about once a second for the progress line, the
 * in-flight gauge and the live dashboard. Rates are over the last interval, not since the
 * start, so a stall shows.
 */

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
}
