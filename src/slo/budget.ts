/**
 * Availability, error budget and burn-rate arithmetic, and the SRE workbook's multiwindow
 * burn-rate alert table as data (consumed by the Prometheus rule generator). Pure.
 */
import { InvalidArgumentError } from '../core/errors.js';

/** The service's stated availability objective. */
export const DEFAULT_OBJECTIVE = 0.999;

/**
 * Rounds away binary floating-point noise (1 − 0.999 is 0.0010000000000000009), so that
 * 1 bad event in 1000 consumes exactly 1.0 of a 99.9 % budget in reports.
 */
function clean(x: number): number {
  return Math.round(x * 1e12) / 1e12;
}

/** Throws unless `objective` is a ratio strictly between 0 and 1. */
export function assertObjective(objective: number): void {
  if (!(Number.isFinite(objective) && objective > 0 && objective < 1)) {
    throw new InvalidArgumentError(`objective must be a ratio strictly between 0 and 1 (e.g. 0.999), got ${objective}`);
  }
}

/**
 * Event-based availability: good / (good + bad). Excluded events are not passed in.
 * `undefined` when there were no good or bad events: nothing was observed, and reporting 100 %
 * would let an empty run pass an availability threshold.
 */
export function availability(good: number, bad: number): number | undefined {
  const total = good + bad;
  return total > 0 ? good / total : undefined;
}

/** Error-budget position of a set of events against an objective. */
export interface ErrorBudget {
  /** good / (good + bad); undefined with no events. */
  readonly availability: number | undefined;
  /** bad / (good + bad); 0 with no events. */
  readonly errorRatio: number;
  /** errorRatio / (1 − objective): 1.0 means the whole budget of this window is spent. */
  readonly budgetConsumed: number;
  /**
   * errorRatio / (1 − objective). For one window observed on its own this is the same number
   * as `budgetConsumed`: burn rate is the speed at which budget is spent relative to spending it
   * evenly over the SLO period, and over a single window that speed *is* the share of that
   * window's budget consumed. They differ once windows of different lengths are compared
   * (the multiwindow alerts), which is why both names exist.
   */
  readonly burnRate: number;
  /** Whole bad events the objective allows for this many events: floor((good + bad) × (1 − objective)). */
  readonly allowedBadEvents: number;
}

/** Computes the error budget of `good` and `bad` events against `objective` (0–1, exclusive). */
export function errorBudget(input: { good: number; bad: number; objective: number }): ErrorBudget {
  assertObjective(input.objective);
  const total = input.good + input.bad;
  const allowedRatio = 1 - input.objective;
  const errorRatio = total > 0 ? input.bad / total : 0;
  const consumed = clean(errorRatio / allowedRatio);
  return {
    availability: availability(input.good, input.bad),
    errorRatio,
    budgetConsumed: consumed,
    burnRate: burnRate(errorRatio, input.objective),
    allowedBadEvents: Math.floor(clean(total * allowedRatio)),
  };
}

/** Burn rate of an observed error ratio: errorRatio / (1 − objective) (0.001 at 99.9 % gives 1). */
export function burnRate(errorRatio: number, objective: number): number {
  assertObjective(objective);
  return clean(errorRatio / (1 - objective));
}

/** Minutes of full downtime an objective allows over a period: 99.9 % over 30 days is 43.2. */
export function allowedDowntimeMinutes(objective: number, periodDays: number): number {
  assertObjective(objective);
  if (!(Number.isFinite(periodDays) && periodDays > 0)) {
    throw new InvalidArgumentError(`periodDays must be a positive number, got ${periodDays}`);
  }
  return Math.round(periodDays * 24 * 60 * (1 - objective) * 1e9) / 1e9;
}

/** One row of the multiwindow, multi-burn-rate alert table. */
export interface MultiwindowAlert {
  /** `page` wakes someone; `ticket` is handled in working hours. */
  readonly severity: 'page' | 'ticket';
  /** Long window, as a Prometheus duration. */
  readonly long: string;
  /** Short window (1/12 of the long one), which makes the alert reset quickly. */
  readonly short: string;
  /** Both windows must burn faster than this to fire. */
  readonly burnRate: number;
  /** Long window in milliseconds. */
  readonly longMs: number;
  /** Short window in milliseconds. */
  readonly shortMs: number;
  /** Share of a 30-day budget spent when the alert fires at exactly this burn rate over the long window. */
  readonly budgetSpent: number;
}

const H = 3_600_000;
const M = 60_000;

/** The Google SRE workbook table (chapter "Alerting on SLOs"), for a 30-day period. */
export const MULTIWINDOW_ALERTS: readonly MultiwindowAlert[] = Object.freeze([
  { severity: 'page', long: '1h', short: '5m', burnRate: 14.4, longMs: H, shortMs: 5 * M, budgetSpent: 0.02 },
  { severity: 'page', long: '6h', short: '30m', burnRate: 6, longMs: 6 * H, shortMs: 30 * M, budgetSpent: 0.05 },
  { severity: 'ticket', long: '1d', short: '2h', burnRate: 3, longMs: 24 * H, shortMs: 2 * H, budgetSpent: 0.1 },
  { severity: 'ticket', long: '3d', short: '6h', burnRate: 1, longMs: 72 * H, shortMs: 6 * H, budgetSpent: 0.1 },
] as const);
