/**
 * The factory of executors: checks the load and the shard once (programmer errors throw
 * here), then picks the schedule.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { ClosedExecutor } from './closed-executor.js';
import { OpenExecutor } from './open-executor.js';
import { createConstantSchedule, createGammaSchedule, createRampingSchedule } from './schedules.js';
import type { Executor, ExecutorDeps, ResolvedLoad, ShardSpec } from './types.js';

/** Seed used when none is given, so a run without one is still reproducible. */
export const DEFAULT_SEED = 1;

/**
 * Creates an executor of `load` that calls `deps.job` on schedule. With `deps.shard` it
 * produces only its shard's arrivals (constant and ramping: every `count`-th, starting at
 * `index`; poisson: `rate / count` with a seed of its own; constant-concurrency: its share of
 * the workers). With `deps.startOffsetMs` it joins its schedule that far in, counting the
 * arrivals before as missed. Throws `InvalidArgumentError` for a load, shard or offset that
 * cannot run.
 */
export function createExecutor(load: ResolvedLoad, deps: ExecutorDeps): Executor {
  const shard = checkShard(deps.shard);
  const { clock, job } = deps;
  if (typeof job !== 'function') throw new InvalidArgumentError('job must be a function');
  const seed = deps.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(seed)) throw new InvalidArgumentError(`seed must be an integer, got ${seed}`);
  checkNonNegative('gracefulStopMs', load.gracefulStopMs);
  const offset = deps.startOffsetMs ?? 0;
  checkNonNegative('startOffsetMs', offset);
  switch (load.executor) {
    case 'constant-arrival-rate':
      checkPositive('ratePerS', load.ratePerS);
      checkPositive('durationMs', load.durationMs);
      checkCount('maxInFlight', load.maxInFlight);
      return new OpenExecutor(clock, job, createConstantSchedule(load.ratePerS, load.durationMs, shard), load.maxInFlight, offset);
    case 'ramping-arrival-rate': {
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
      const schedule = createRampingSchedule(load.startRatePerS, load.stages, shard);
      return new OpenExecutor(clock, job, schedule, load.maxInFlight, offset);
    }
    case 'poisson':
      checkPositive('ratePerS', load.ratePerS);
      checkPositive('durationMs', load.durationMs);
      checkCount('maxInFlight', load.maxInFlight);
      if (!(load.burstiness >= 0.1) || !Number.isFinite(load.burstiness)) {
        throw new InvalidArgumentError(`burstiness must be a finite number >= 0.1, got ${load.burstiness}`);
      }
      return new OpenExecutor(clock, job, createGammaSchedule(load, seed, shard), load.maxInFlight, offset);
    case 'constant-concurrency': {
      checkCount('concurrency', load.concurrency);
      checkPositive('durationMs', load.durationMs);
      // Shard i takes ceil or floor of its share, so the shares add up to the whole.
      const workers = Math.floor((load.concurrency + shard.count - 1 - shard.index) / shard.count);
      return new ClosedExecutor(clock, job, workers, load.durationMs, offset);
    }
    default:
      throw new InvalidArgumentError(`unknown executor ${JSON.stringify((load as { executor: unknown }).executor)}`);
  }
}

function checkShard(shard: ShardSpec | undefined): ShardSpec {
  if (shard === undefined) return { index: 0, count: 1 };
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new InvalidArgumentError(`shard must have an integer count >= 1 and 0 <= index < count, got ${index}/${count}`);
  }
  return shard;
}

function checkPositive(name: string, v: number): void {
  if (!(v > 0) || !Number.isFinite(v)) throw new InvalidArgumentError(`${name} must be a finite number > 0, got ${v}`);
}

function checkNonNegative(name: string, v: number): void {
  if (!(v >= 0) || !Number.isFinite(v)) throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${v}`);
}

function checkCount(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be an integer >= 1, got ${v}`);
}
