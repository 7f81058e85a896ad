/**
 * The factory of executors: checks what every executor shares once (programmer errors throw
 * here), then hands the load to its executor's module (`executor-registry.ts`).
 */
import { InvalidArgumentError } from '../core/errors.js';
import { checkNonNegative } from './executor-kit.js';
import { executorOf, type ResolvedLoad } from './executor-registry.js';
import type { Executor, ExecutorDeps, ShardSpec } from './types.js';

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
  const startOffsetMs = deps.startOffsetMs ?? 0;
  checkNonNegative('startOffsetMs', startOffsetMs);
  return executorOf(load).create(load, { clock, job, seed, shard, startOffsetMs });
}

function checkShard(shard: ShardSpec | undefined): ShardSpec {
  if (shard === undefined) return { index: 0, count: 1 };
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new InvalidArgumentError(`shard must have an integer count >= 1 and 0 <= index < count, got ${index}/${count}`);
  }
  return shard;
}
