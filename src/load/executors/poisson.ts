/**
 * `poisson`: the open model with random gaps from a gamma distribution with mean `1/rate`
 * (`burstiness` is the shape k: 1 is a Poisson process, below 1 burstier, above 1 steadier).
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../../core/errors.js';
import { duration, rate, strict } from '../../core/unit-schemas.js';
import { checkCount, checkPositive, defineExecutor, forSeconds, gracefulStopField, maxInFlightField, type OpenLoadInput } from '../executor-kit.js';
import { OpenExecutor } from '../open-executor.js';
import { createGammaSchedule } from '../schedules.js';

/** Default gamma shape of the poisson executor (a Poisson process). */
export const DEFAULT_BURSTINESS = 1;

/**
 * Open model: random gaps from a gamma distribution with mean `1/rate`. `burstiness` is the
 * gamma shape k (k = 1 is a Poisson process; the gaps' coefficient of variation is 1/√k, so
 * k < 1 gives bursts and k > 1 gives a steadier stream).
 */
export interface PoissonLoad {
  readonly executor: 'poisson';
  readonly ratePerS: number;
  readonly durationMs: number;
  readonly maxInFlight: number;
  readonly burstiness: number;
  readonly gracefulStopMs: number;
}

/** Random (gamma) gaps with a mean rate; `burstiness` 1 is Poisson, below 1 burstier. */
export interface PoissonInput extends OpenLoadInput {
  readonly executor: 'poisson';
  /** Mean rate: `"100/min"`, `"16.7/s"`, a number per second, or a share of the tier's limit. */
  readonly rate: number | string;
  readonly duration: number | string;
  /** Gamma shape k ≥ 0.1 (default 1); the gaps' coefficient of variation is 1/√k. */
  readonly burstiness?: number;
}

/** The module. */
export const poisson = defineExecutor<PoissonInput>()({
  name: 'poisson',
  model: 'open',
  schema: strict(
    {
      executor: z.literal('poisson'),
      rate: rate('positive'),
      duration: duration('positive'),
      burstiness: z
        .number()
        .min(0.1, { error: 'must be a number >= 0.1 (1 = Poisson; below 1 burstier, above 1 steadier)' })
        .optional(),
      maxInFlight: maxInFlightField,
      gracefulStop: gracefulStopField,
    },
    'allowed for poisson',
  ),
  resolve: (load, r): PoissonLoad => ({
    executor: 'poisson',
    ratePerS: r.overrideRatePerS ?? r.perS(load.rate),
    durationMs: r.overrides.durationMs ?? load.duration,
    maxInFlight: r.maxInFlight(load),
    burstiness: load.burstiness ?? DEFAULT_BURSTINESS,
    gracefulStopMs: r.gracefulStopMs(load),
  }),
  durationMs: (load) => load.durationMs,
  meanRatePerS: (load) => load.ratePerS,
  peakRatePerS: (load) => load.ratePerS,
  shownLength: (load) => forSeconds(load.durationMs),
  create(load, { clock, job, seed, shard, startOffsetMs }) {
    checkPositive('ratePerS', load.ratePerS);
    checkPositive('durationMs', load.durationMs);
    checkCount('maxInFlight', load.maxInFlight);
    if (!(load.burstiness >= 0.1) || !Number.isFinite(load.burstiness)) {
      throw new InvalidArgumentError(`burstiness must be a finite number >= 0.1, got ${load.burstiness}`);
    }
    return new OpenExecutor(clock, job, createGammaSchedule(load, seed, shard), load.maxInFlight, startOffsetMs);
  },
});
