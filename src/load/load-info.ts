/** Facts about a resolved load that reports and progress displays need, from its executor's module. */
import { executorOf, type ClosedLoad, type ResolvedLoad } from './executor-registry.js';

/**
 * Whether `load` is the closed model: a fixed number of workers, each starting its next job when
 * the last settles, so it has no target rate, no in-flight cap and no schedule to fall behind.
 * Every other executor is the open model (arrivals at intended instants).
 */
export function isClosedModel(load: ResolvedLoad): load is ClosedLoad {
  return executorOf(load).model === 'closed';
}

/** Schedule length in ms (the sum of the stages for a ramp). */
export function loadDurationMs(load: ResolvedLoad): number {
  return executorOf(load).durationMs(load);
}

/**
 * Mean target rate over the schedule, per second (arrivals expected ÷ duration); 0 for the
 * closed model, whose rate is whatever the service allows.
 */
export function meanTargetRatePerS(load: ResolvedLoad): number {
  return executorOf(load).meanRatePerS(load);
}

/** Highest target rate reached, per second; 0 for the closed model. */
export function peakTargetRatePerS(load: ResolvedLoad): number {
  return executorOf(load).peakRatePerS(load);
}

/** How a run's opening line gives the schedule's length: `for 30s`, `for its stages`. */
export function shownLength(load: ResolvedLoad): string {
  return executorOf(load).shownLength(load);
}
