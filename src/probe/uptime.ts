/**
 * Uptime of a probe series over a window, two ways, and the error budget against the
 * objective. Pure.
 *
 * - probe-based: successful probes / probes with a time in the window;
 * - time-based: minutes up / minutes observed, where each probe's outcome stands for the span
 *   from its time to the next probe of the series, at most its interval (so time the prober was
 *   not running is neither up nor down), clipped to the window.
 *
 * The budget is time-based: the window's allowed downtime (`allowedDowntimeMinutes` of slo/,
 * 43.2 min for 99.9 % over 30 days) minus the minutes observed down.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { allowedDowntimeMinutes, assertObjective, burnRate } from '../slo/budget.js';
import type { OutcomePoint } from './series.js';

/** A time window [startMs, endMs). */
export interface TimeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** Uptime of one series over a window. */
export interface Uptime {
  readonly probes: number;
  readonly successes: number;
  /** successes / probes; undefined without probes. */
  readonly probeUptime: number | undefined;
  readonly observedMs: number;
  readonly upMs: number;
  readonly downMs: number;
  /** upMs / observedMs; undefined when nothing was observed. */
  readonly timeUptime: number | undefined;
  /**
   * Consecutive records further apart than the earlier one claims to stand for (beyond a
   * tolerance for scheduling jitter): the time between is counted neither up nor down.
   */
  readonly lateGaps: number;
  /** The time those gaps leave uncounted, within the window. */
  readonly lateGapMs: number;
}

/** Lateness a record may have before its gap counts as late: scheduling jitter, not a missed round. */
export function lateTolerance(intervalMs: number): number {
  return Math.max(1000, intervalMs * 0.1);
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Uptime of a series taken point by point, in constant memory. */
export interface UptimeAccumulator {
  /** Takes the next point (in time order). */
  add(point: OutcomePoint): void;
  /** The uptime of the points taken. Call once, after the last point. */
  finish(): Uptime;
}

/**
 * Creates an accumulator over `window`. A point's span ends at the next point, so each point
 * is settled when the next arrives (or at `finish`): one point is held, whatever the history.
 */
export function createUptimeAccumulator(window: TimeWindow): UptimeAccumulator {
  if (!(window.endMs > window.startMs)) throw new InvalidArgumentError('uptime window must end after it starts');
  let probes = 0;
  let successes = 0;
  let upMs = 0;
  let downMs = 0;
  let lateGaps = 0;
  let lateGapMs = 0;
  let pending: OutcomePoint | undefined;

  const settle = (p: OutcomePoint, next: OutcomePoint | undefined): void => {
    if (p.timeMs >= window.startMs && p.timeMs < window.endMs) {
      probes++;
      if (p.success) successes++;
    }
    const from = Math.max(p.timeMs, window.startMs);
    let to = Math.min(p.timeMs + p.intervalMs, window.endMs);
    if (next !== undefined) {
      to = Math.min(to, Math.max(next.timeMs, p.timeMs));
      const claimedEnd = p.timeMs + p.intervalMs;
      if (next.timeMs - claimedEnd > lateTolerance(p.intervalMs) && next.timeMs > window.startMs && claimedEnd < window.endMs) {
        lateGaps++;
        lateGapMs += Math.min(next.timeMs, window.endMs) - Math.max(claimedEnd, window.startMs);
      }
    }
    if (to <= from) return;
    if (p.success) upMs += to - from;
    else downMs += to - from;
  };

  return {
    add(point) {
      if (pending !== undefined) settle(pending, point);
      pending = point;
    },
    finish() {
      if (pending !== undefined) settle(pending, undefined);
      pending = undefined;
      const observedMs = upMs + downMs;
      return {
        probes,
        successes,
        probeUptime: probes > 0 ? successes / probes : undefined,
        observedMs,
        upMs,
        downMs,
        timeUptime: observedMs > 0 ? upMs / observedMs : undefined,
        lateGaps,
        lateGapMs,
      };
    },
  };
}

/** Computes both uptimes of a time-ordered series over `window`. */
export function computeUptime(points: readonly OutcomePoint[], window: TimeWindow): Uptime {
  const acc = createUptimeAccumulator(window);
  for (const p of points) acc.add(p);
  return acc.finish();
}

/** Error-budget position of an uptime against an objective over a window. */
export interface UptimeBudget {
  readonly objective: number;
  readonly windowDays: number;
  /** Downtime the objective allows over the whole window. */
  readonly allowedDowntimeMinutes: number;
  readonly downMinutes: number;
  /** allowed − down; negative once overspent. */
  readonly budgetLeftMinutes: number;
  /** down / allowed (1 = the whole budget spent). */
  readonly budgetConsumed: number;
  /** Observed time-based error ratio / (1 − objective); undefined when nothing was observed. */
  readonly burnRate: number | undefined;
  /** timeUptime ≥ objective; undefined when nothing was observed. */
  readonly withinObjective: boolean | undefined;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The budget of `uptime` against `objective` (0–1, exclusive) over a window of `windowMs`. */
export function uptimeBudget(uptime: Uptime, objective: number, windowMs: number): UptimeBudget {
  assertObjective(objective);
  const windowDays = windowMs / DAY_MS;
  const allowed = allowedDowntimeMinutes(objective, windowDays);
  const downMinutes = uptime.downMs / MINUTE_MS;
  const observed = uptime.observedMs > 0;
  return {
    objective,
    windowDays,
    allowedDowntimeMinutes: round6(allowed),
    downMinutes: round6(downMinutes),
    budgetLeftMinutes: round6(allowed - downMinutes),
    budgetConsumed: round6(downMinutes / allowed),
    burnRate: observed ? burnRate(uptime.downMs / uptime.observedMs, objective) : undefined,
    // A hair of tolerance: 999 of 1000 equal spans must read as exactly 99.9 %.
    withinObjective: uptime.timeUptime === undefined ? undefined : uptime.timeUptime >= objective - 1e-12,
  };
}
