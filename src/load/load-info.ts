/** Facts about a resolved load that reports and progress displays need. */
import type { ConstantConcurrencyLoad, ResolvedLoad } from './types.js';

/**
 * Whether `load` is the closed model: a fixed number of workers, each starting its next job when
 * the last settles, so it has no target rate, no in-flight cap and no schedule to fall behind.
 * Every other executor is the open model (arrivals at intended instants).
 */
export function isClosedModel(load: ResolvedLoad): load is ConstantConcurrencyLoad {
  return load.executor === 'constant-concurrency';
}

/** Schedule length in ms (the sum of the stages for a ramp). */
export function loadDurationMs(load: ResolvedLoad): number {
  if (load.executor === 'ramping-arrival-rate') return load.stages.reduce((sum, s) => sum + s.durationMs, 0);
  return load.durationMs;
}

/**
 * Mean target rate over the schedule, per second (arrivals expected ÷ duration); 0 for the
 * closed model, whose rate is whatever the service allows.
 */
export function meanTargetRatePerS(load: ResolvedLoad): number {
  switch (load.executor) {
    case 'constant-arrival-rate':
    case 'poisson':
      return load.ratePerS;
    case 'ramping-arrival-rate': {
      let arrivals = 0;
      let from = load.startRatePerS;
      for (const s of load.stages) {
        arrivals += ((from + s.targetRatePerS) / 2) * (s.durationMs / 1000);
        from = s.targetRatePerS;
      }
      const durationS = loadDurationMs(load) / 1000;
      return durationS > 0 ? arrivals / durationS : 0;
    }
    case 'constant-concurrency':
      return 0;
  }
}

/** Highest target rate reached, per second; 0 for the closed model. */
export function peakTargetRatePerS(load: ResolvedLoad): number {
  switch (load.executor) {
    case 'constant-arrival-rate':
    case 'poisson':
      return load.ratePerS;
    case 'ramping-arrival-rate':
      return load.stages.reduce((max, s) => Math.max(max, s.targetRatePerS), load.startRatePerS);
    case 'constant-concurrency':
      return 0;
  }
}
