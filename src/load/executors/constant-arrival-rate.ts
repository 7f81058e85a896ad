/** `constant-arrival-rate` (the default executor): the open model, arrivals evenly spaced at one rate. */
import { z } from 'zod';
import { duration, rate, strict } from '../../core/unit-schemas.js';
import { checkCount, checkPositive, defineExecutor, forSeconds, gracefulStopField, maxInFlightField, type OpenLoadInput } from '../executor-kit.js';
import { OpenExecutor } from '../open-executor.js';
import { createConstantSchedule } from '../schedules.js';

/** Open model: arrivals evenly spaced at a fixed rate. */
export interface ConstantArrivalRateLoad {
  readonly executor: 'constant-arrival-rate';
  readonly ratePerS: number;
  readonly durationMs: number;
  readonly maxInFlight: number;
  readonly gracefulStopMs: number;
}

/** Evenly spaced arrivals at one rate (the default executor). */
export interface ConstantArrivalRateInput extends OpenLoadInput {
  readonly executor?: 'constant-arrival-rate';
  /** `"100/min"`, `"16.7/s"`, a number per second, or a share of the tier's limit (`"120%"`). */
  readonly rate: number | string;
  /** `"30s"`, `"2m"`, or a number of milliseconds. */
  readonly duration: number | string;
}

/** The module. */
export const constantArrivalRate = defineExecutor<ConstantArrivalRateInput>()({
  name: 'constant-arrival-rate',
  model: 'open',
  schema: strict(
    {
      executor: z.literal('constant-arrival-rate'),
      rate: rate('positive'),
      duration: duration('positive'),
      maxInFlight: maxInFlightField,
      gracefulStop: gracefulStopField,
    },
    'allowed for constant-arrival-rate',
  ),
  resolve: (load, r): ConstantArrivalRateLoad => ({
    executor: 'constant-arrival-rate',
    ratePerS: r.overrideRatePerS ?? r.perS(load.rate),
    durationMs: r.overrides.durationMs ?? load.duration,
    maxInFlight: r.maxInFlight(load),
    gracefulStopMs: r.gracefulStopMs(load),
  }),
  durationMs: (load) => load.durationMs,
  meanRatePerS: (load) => load.ratePerS,
  peakRatePerS: (load) => load.ratePerS,
  shownLength: (load) => forSeconds(load.durationMs),
  create(load, { clock, job, shard, startOffsetMs }) {
    checkPositive('ratePerS', load.ratePerS);
    checkPositive('durationMs', load.durationMs);
    checkCount('maxInFlight', load.maxInFlight);
    return new OpenExecutor(clock, job, createConstantSchedule(load.ratePerS, load.durationMs, shard), load.maxInFlight, startOffsetMs);
  },
});
