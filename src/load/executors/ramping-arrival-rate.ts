/**
 * `ramping-arrival-rate`: the open model with a piecewise-linear rate. The run lasts the sum of
 * its stages; `--duration` scales the stages to it, `--rate` scales every rate so the peak is it.
 */
import { z } from 'zod';
import { duration, MAX_DURATION_MS, rate, strict } from '../../core/unit-schemas.js';
import { checkCount, checkNonNegative, checkPositive, defineExecutor, gracefulStopField, maxInFlightField, type OpenLoadInput } from '../executor-kit.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { OpenExecutor } from '../open-executor.js';
import { createRampingSchedule } from '../schedules.js';
import type { RampStage } from '../types.js';

/** Open model: a piecewise-linear rate; total duration is the sum of the stages. */
export interface RampingArrivalRateLoad {
  readonly executor: 'ramping-arrival-rate';
  readonly startRatePerS: number;
  readonly stages: readonly RampStage[];
  readonly maxInFlight: number;
  readonly gracefulStopMs: number;
}

/** Linear ramps between rates; the run lasts the sum of the stages. */
export interface RampingArrivalRateInput extends OpenLoadInput {
  readonly executor: 'ramping-arrival-rate';
  /** Rate at the start of the first stage (default 0). */
  readonly startRate?: number | string;
  readonly stages: readonly { readonly duration: number | string; readonly target: number | string }[];
}

const totalMs = (stages: readonly { duration: number }[]): number => stages.reduce((sum, s) => sum + s.duration, 0);

const lengthMs = (load: RampingArrivalRateLoad): number => load.stages.reduce((sum, s) => sum + s.durationMs, 0);

/** The module. */
export const rampingArrivalRate = defineExecutor<RampingArrivalRateInput>()({
  name: 'ramping-arrival-rate',
  model: 'open',
  schema: strict(
    {
      executor: z.literal('ramping-arrival-rate'),
      startRate: rate('non-negative').optional(),
      stages: z
        .array(strict({ duration: duration('non-negative'), target: rate('non-negative') }))
        .min(1, { error: 'needs at least one stage' })
        .refine((stages) => totalMs(stages) > 0, { error: 'stages must last longer than 0 in total' })
        .refine((stages) => totalMs(stages) <= MAX_DURATION_MS, { error: 'stages must last at most 90d in total' }),
      maxInFlight: maxInFlightField,
      gracefulStop: gracefulStopField,
    },
    'allowed for ramping-arrival-rate',
  ),
  resolve(load, r): RampingArrivalRateLoad {
    let startRatePerS = load.startRate === undefined ? 0 : r.perS(load.startRate);
    let stages = load.stages.map((s) => ({ durationMs: s.duration, targetRatePerS: r.perS(s.target) }));
    if (r.overrides.durationMs !== undefined) {
      const f = r.overrides.durationMs / stages.reduce((sum, s) => sum + s.durationMs, 0);
      stages = stages.map((s) => ({ ...s, durationMs: s.durationMs * f }));
    }
    if (r.overrideRatePerS !== undefined) {
      const peak = stages.reduce((max, s) => Math.max(max, s.targetRatePerS), startRatePerS);
      if (peak > 0) {
        const f = r.overrideRatePerS / peak;
        startRatePerS *= f;
        stages = stages.map((s) => ({ ...s, targetRatePerS: s.targetRatePerS * f }));
      }
    }
    return { executor: 'ramping-arrival-rate', startRatePerS, stages, maxInFlight: r.maxInFlight(load), gracefulStopMs: r.gracefulStopMs(load) };
  },
  durationMs: lengthMs,
  meanRatePerS(load) {
    let arrivals = 0;
    let from = load.startRatePerS;
    for (const s of load.stages) {
      arrivals += ((from + s.targetRatePerS) / 2) * (s.durationMs / 1000);
      from = s.targetRatePerS;
    }
    const durationS = lengthMs(load) / 1000;
    return durationS > 0 ? arrivals / durationS : 0;
  },
  peakRatePerS: (load) => load.stages.reduce((max, s) => Math.max(max, s.targetRatePerS), load.startRatePerS),
  shownLength: () => 'for its stages',
  create(load, { clock, job, shard, startOffsetMs }) {
    checkNonNegative('startRatePerS', load.startRatePerS);
    if (load.stages.length === 0) throw new InvalidArgumentError('stages must not be empty');
    let total = 0;
    load.stages.forEach((s, i) => {
      checkNonNegative(`stages[${i}].durationMs`, s.durationMs);
      checkNonNegative(`stages[${i}].targetRatePerS`, s.targetRatePerS);
      total += s.durationMs;
    });
    checkPositive('total stage duration', total);
    checkCount('maxInFlight', load.maxInFlight);
    return new OpenExecutor(clock, job, createRampingSchedule(load.startRatePerS, load.stages, shard), load.maxInFlight, startOffsetMs);
  },
});
