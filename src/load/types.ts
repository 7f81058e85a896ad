/**
 * Shapes of the load part every executor shares: the job an executor calls and what an
 * executor reports while it runs (each executor's own load is in its module, `executors/`).
 * No HTTP here: a job is any async call.
 */
import type { Histogram } from 'hdr-histogram-js';
import type { Clock } from '../core/clock.js';

/**
 * One request of the run, started by an executor. `intendedNs` is the arrival's instant on the
 * schedule (latency is measured from it); `signal` aborts when a drain's grace runs out.
 * Jobs are expected never to reject (failures are data), but executors guard anyway.
 */
export type Job = (intendedNs: number, signal: AbortSignal) => Promise<unknown> | typeof NOT_STARTED;

/**
 * What a job returns, synchronously and instead of a promise, when it had nothing to start (a
 * journey whose `unique` data ran out): the arrival is not counted as started (nor as dropped),
 * and its schedule lag is not recorded.
 */
export const NOT_STARTED: unique symbol = Symbol('flowgauge.notStarted');

/** One linear segment of a ramping arrival rate. */
export interface RampStage {
  readonly durationMs: number;
  /** Rate reached at the end of the stage; the stage starts at the previous stage's target. */
  readonly targetRatePerS: number;
}

/**
 * Which part of a schedule this executor produces: arrivals `index`, `index + count`, … so that
 * `count` shards (processes or machines) together produce the whole schedule.
 */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/** What an executor needs besides its load. */
export interface ExecutorDeps {
  readonly clock: Clock;
  readonly job: Job;
  /** Seed of the random gaps (poisson); the same seed gives the same schedule. Default 1. */
  readonly seed?: number;
  readonly shard?: ShardSpec;
  /**
   * Where in the schedule this executor starts, in ms (default 0): it joins a schedule that
   * began that long ago on another machine's clock (a shard that came up after `--start-at`).
   * Open model: the arrivals due before it are not sent but counted as `missed`, and every
   * later one comes at its own instant, in phase with shards that started on time. Closed
   * model: the workers start at once and stop with the schedule's end, so they run that much
   * less (fewer iterations; nothing is missed). At or past the schedule's length nothing runs.
   */
  readonly startOffsetMs?: number;
}

/** Percentiles of a distribution in milliseconds (the report's `Pct`). */
export interface PctMs {
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

/**
 * Life of an executor: `running` while the schedule runs, `draining` once it ended (duration
 * elapsed or `stop()`) with jobs still in flight, `finished` when none remain.
 */
export type ExecutorPhase = 'idle' | 'running' | 'draining' | 'finished';

/** Counters of an executor; cheap to read (the progress display reads them every second). */
export interface ExecutorStats {
  readonly phase: ExecutorPhase;
  /** Jobs handed to the job function. */
  readonly started: number;
  /** Arrivals not started because `maxInFlight` jobs were in flight (never delayed or queued). */
  readonly dropped: number;
  /** Jobs settled (resolved, rejected or thrown). */
  readonly completed: number;
  readonly inFlight: number;
  /** Arrivals whose instant has come: `started + dropped`. */
  readonly scheduled: number;
  /**
   * Arrivals due before the executor's start offset (`startOffsetMs`), not sent: their time
   * had passed when it joined the schedule. In no other count; 0 for the closed model.
   */
  readonly missed: number;
  /**
   * Time since `start()`, frozen when the schedule ends (so `started / elapsed` is the achieved
   * rate); with a start offset, the part of the schedule this executor ran.
   */
  readonly elapsedNs: number;
  /** Actual start minus intended start of started jobs, in ms (zero counts in the closed model). */
  readonly scheduleLag: PctMs;
  /** This executor's target rate now (its shard's share); 0 for the closed model. */
  readonly targetRatePerS: number;
}

/** Runs a schedule of jobs. Create with `createExecutor`. */
export interface Executor {
  /** Begins the schedule at `clock.nowNs()`. Throws `InvalidArgumentError` when called twice. */
  start(): void;
  /** Stops scheduling new starts (Ctrl-C); in-flight jobs continue. */
  stop(): void;
  /**
   * Stops the schedule if it still runs, waits for in-flight jobs up to `graceMs`, then aborts
   * the run's shared signal and resolves (aborted jobs may still be settling; `finished`
   * tells when they have). Resolves at once, without aborting, when nothing is in flight.
   */
  drain(graceMs: number): Promise<void>;
  /** Resolves when the schedule has ended (duration elapsed or `stop()`). */
  readonly scheduleEnded: Promise<void>;
  /** Resolves when the schedule has ended and no job is in flight. */
  readonly finished: Promise<void>;
  stats(): ExecutorStats;
  /**
   * The schedule-lag histogram in microseconds (read only), for reports that serialise
   * histograms so shards merge into exact percentiles.
   */
  readonly scheduleLagHistogram: Histogram;
  /** Total schedule length in ms (the load's duration). */
  readonly durationMs: number;
}
