/**
 * `constant-concurrency`: the closed model, a fixed number of workers, each starting its next
 * job when the last settles. It has no rate and no in-flight cap (its concurrency is the cap),
 * so `--rate` and `--max-in-flight` are refused for it.
 */
import { z } from 'zod';
import { duration, strict } from '../../core/unit-schemas.js';
import { ClosedExecutor } from '../closed-executor.js';
import { checkCount, checkPositive, count, defineExecutor, forSeconds, gracefulStopField, MAX_CONCURRENCY, type LoadCommonInput } from '../executor-kit.js';

/** Closed model: `concurrency` workers, each starting its next job when the last one settles. */
export interface ConstantConcurrencyLoad {
  readonly executor: 'constant-concurrency';
  readonly concurrency: number;
  readonly durationMs: number;
  readonly gracefulStopMs: number;
}

/** Closed model: a fixed number of workers, each sending its next request when one returns. */
export interface ConstantConcurrencyInput extends LoadCommonInput {
  readonly executor: 'constant-concurrency';
  readonly concurrency: number;
  readonly duration: number | string;
}

/** The module. */
export const constantConcurrency = defineExecutor<ConstantConcurrencyInput>()({
  name: 'constant-concurrency',
  model: 'closed',
  schema: strict(
    {
      executor: z.literal('constant-concurrency'),
      concurrency: count(MAX_CONCURRENCY),
      duration: duration('positive'),
      gracefulStop: gracefulStopField,
    },
    'allowed for constant-concurrency',
  ),
  resolve(load, r): ConstantConcurrencyLoad {
    if (r.overrides.rate !== undefined) r.issue('overrides.rate', 'constant-concurrency has no rate; it runs a fixed number of workers');
    if (r.overrides.maxInFlight !== undefined) r.issue('overrides.maxInFlight', 'constant-concurrency has no maxInFlight; its concurrency is the cap');
    return { executor: 'constant-concurrency', concurrency: load.concurrency, durationMs: r.overrides.durationMs ?? load.duration, gracefulStopMs: r.gracefulStopMs(load) };
  },
  durationMs: (load) => load.durationMs,
  meanRatePerS: () => 0,
  peakRatePerS: () => 0,
  shownLength: (load) => forSeconds(load.durationMs),
  create(load, { clock, job, shard, startOffsetMs }) {
    checkCount('concurrency', load.concurrency);
    checkPositive('durationMs', load.durationMs);
    // Shard i takes ceil or floor of its share, so the shares add up to the whole.
    const workers = Math.floor((load.concurrency + shard.count - 1 - shard.index) / shard.count);
    return new ClosedExecutor(clock, job, workers, load.durationMs, startOffsetMs);
  },
});
