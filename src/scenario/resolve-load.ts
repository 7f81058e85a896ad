/**
 * From a parsed load (rates still specs) to a `ResolvedLoad`: relative rates against the tier,
 * defaults filled, command-line overrides applied and checked against the executor.
 */
import type { ConfigIssue } from '../core/errors.js';
import type { ResolvedLoad } from '../load/types.js';
import type { ParsedLoad, RateSpec } from './schema.js';

/**
 * Default cap on requests in flight. At the pro limit (16.7/s) it holds a minute of stalled
 * requests before arrivals are dropped; raise it for rates of hundreds per second or more.
 */
export const DEFAULT_MAX_IN_FLIGHT = 1000;
/** Default time in-flight requests get to finish after the schedule ends. */
export const DEFAULT_GRACEFUL_STOP_MS = 5000;
/** Default gamma shape of the poisson executor (a Poisson process). */
export const DEFAULT_BURSTINESS = 1;

/** Converts a rate spec to requests per second against a tier limit. */
export function ratePerS(spec: RateSpec, tierLimitPerMinute: number): number {
  return spec.perS ?? (spec.fraction * tierLimitPerMinute) / 60;
}

/** Checked override values (undefined where none was given). */
export interface CheckedOverrides {
  readonly durationMs: number | undefined;
  readonly rate: RateSpec | undefined;
  readonly maxInFlight: number | undefined;
}

/** Resolves the load and applies the overrides; problems go to `issues`. */
export function resolveLoad(
  load: ParsedLoad,
  tierLimitPerMinute: number,
  overrides: CheckedOverrides,
  issues: ConfigIssue[],
): ResolvedLoad {
  const perS = (spec: RateSpec): number => ratePerS(spec, tierLimitPerMinute);
  const gracefulStopMs = load.gracefulStop ?? DEFAULT_GRACEFUL_STOP_MS;
  const overrideRate = overrides.rate === undefined ? undefined : perS(overrides.rate);

  if (load.executor === 'constant-concurrency') {
    if (overrides.rate !== undefined) {
      issues.push({
        path: 'overrides.rate',
        message: 'constant-concurrency has no rate; it runs a fixed number of workers',
      });
    }
    if (overrides.maxInFlight !== undefined) {
      issues.push({
        path: 'overrides.maxInFlight',
        message: 'constant-concurrency has no maxInFlight; its concurrency is the cap',
      });
    }
    return {
      executor: 'constant-concurrency',
      concurrency: load.concurrency,
      durationMs: overrides.durationMs ?? load.duration,
      gracefulStopMs,
    };
  }

  const maxInFlight = overrides.maxInFlight ?? load.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  if (load.executor === 'ramping-arrival-rate') {
    let startRatePerS = load.startRate === undefined ? 0 : perS(load.startRate);
    let stages = load.stages.map((s) => ({ durationMs: s.duration, targetRatePerS: perS(s.target) }));
    if (overrides.durationMs !== undefined) {
      const total = stages.reduce((sum, s) => sum + s.durationMs, 0);
      const f = overrides.durationMs / total;
      stages = stages.map((s) => ({ ...s, durationMs: s.durationMs * f }));
    }
    if (overrideRate !== undefined) {
      const peak = stages.reduce((max, s) => Math.max(max, s.targetRatePerS), startRatePerS);
      if (peak > 0) {
        const f = overrideRate / peak;
        startRatePerS *= f;
        stages = stages.map((s) => ({ ...s, targetRatePerS: s.targetRatePerS * f }));
      }
    }
    return { executor: 'ramping-arrival-rate', startRatePerS, stages, maxInFlight, gracefulStopMs };
  }

  const rate = overrideRate ?? perS(load.rate);
  const durationMs = overrides.durationMs ?? load.duration;
  if (load.executor === 'poisson') {
    const burstiness = load.burstiness ?? DEFAULT_BURSTINESS;
    return { executor: 'poisson', ratePerS: rate, durationMs, maxInFlight, burstiness, gracefulStopMs };
  }
  return { executor: 'constant-arrival-rate', ratePerS: rate, durationMs, maxInFlight, gracefulStopMs };
}
