/**
 * Arrival schedules of the open model: pure generators of intended instants, as offsets in
 * nanoseconds from the start. Each instant is computed from the arrival's index (or, for
 * random gaps, from the previous instant), never by adding a float period over and over,
 * so a long run does not drift.
 */
import { NS_PER_S } from '../core/clock.js';
import { createGammaSampler, createRandom, shardSeed } from './prng.js';
import type { RampStage, ShardSpec } from './types.js';

/** A source of arrival instants for one executor (one shard). */
export interface ArrivalSchedule {
  /** Offset in ns of the next arrival, advancing the cursor; `Infinity` when none remain. */
  next(): number;
  /** Target rate of this shard at `offsetNs`, per second. */
  rateAt(offsetNs: number): number;
  /** Length of the schedule in ns; every offset returned is below it. */
  readonly durationNs: number;
}

const WHOLE: ShardSpec = { index: 0, count: 1 };

/** Arrival `i` at `i / rate`, for `i = index, index + count, …` below the duration. */
export function createConstantSchedule(ratePerS: number, durationMs: number, shard: ShardSpec = WHOLE): ArrivalSchedule {
  const durationNs = durationMs * 1e6;
  const { index, count } = shard;
  let k = 0;
  return {
    durationNs,
    next() {
      if (ratePerS <= 0) return Infinity;
      // i * 1e9 / rate rounds once; (i / rate) * 1e9 would round twice.
      const offset = ((index + k * count) * NS_PER_S) / ratePerS;
      if (offset >= durationNs) return Infinity;
      k++;
      return offset;
    },
    rateAt: () => ratePerS / count,
  };
}

interface Segment {
  readonly startNs: number;
  readonly durS: number;
  /** Rate at the segment's start and end, per second. */
  readonly a: number;
  readonly b: number;
  /** Half the slope, (b − a) / (2·dur), the quadratic coefficient of the count. */
  readonly k: number;
  /** Arrivals due before the segment (the integral of the rate up to its start). */
  readonly countBefore: number;
  /** Arrivals due within it. */
  readonly count: number;
}

/**
 * Arrival `i` at the instant t where the integral of the piecewise-linear rate reaches i
 * (so a 0 → 10/s ramp over 10 s holds 50 arrivals, at √(2i) s). Within a segment the count is
 * `a·τ + k·τ²`; τ solves it by the cancellation-free form `2y / (a + √(a² + 4ky))`.
 */
export function createRampingSchedule(
  startRatePerS: number,
  stages: readonly RampStage[],
  shard: ShardSpec = WHOLE,
): ArrivalSchedule {
  const segments: Segment[] = [];
  let startNs = 0;
  let countBefore = 0;
  let a = startRatePerS;
  for (const stage of stages) {
    const durS = stage.durationMs / 1000;
    const b = stage.targetRatePerS;
    if (durS > 0) {
      const count = ((a + b) / 2) * durS;
      segments.push({ startNs, durS, a, b, k: (b - a) / (2 * durS), countBefore, count });
      countBefore += count;
      startNs += stage.durationMs * 1e6;
    }
    a = b;
  }
  const durationNs = startNs;
  const { index, count } = shard;
  let k = 0;
  let seg = 0;
  return {
    durationNs,
    next() {
      const x = index + k * count;
      // Arrivals only move forward, so the segment cursor never goes back.
      let s = segments[seg];
      while (s !== undefined && x >= s.countBefore + s.count) s = segments[++seg];
      if (s === undefined) return Infinity;
      const y = x - s.countBefore;
      const disc = s.a * s.a + 4 * s.k * y;
      const tauS = y === 0 ? 0 : (2 * y) / (s.a + Math.sqrt(disc > 0 ? disc : 0));
      const offset = s.startNs + Math.min(tauS, s.durS) * NS_PER_S;
      if (!(offset < durationNs)) return Infinity;
      k++;
      return offset;
    },
    rateAt(offsetNs) {
      for (const s of segments) {
        const endNs = s.startNs + s.durS * NS_PER_S;
        if (offsetNs < endNs) {
          const f = Math.max(0, offsetNs - s.startNs) / (s.durS * NS_PER_S);
          return (s.a + (s.b - s.a) * f) / count;
        }
      }
      const last = segments[segments.length - 1];
      return last === undefined ? 0 : last.b / count;
    },
  };
}

/** What a gamma schedule reads of its load (the poisson executor's resolved load has these). */
export interface GammaLoad {
  readonly ratePerS: number;
  readonly durationMs: number;
  readonly burstiness: number;
}

/**
 * Gamma-distributed gaps with mean `count / rate` (each shard runs its share of the rate with
 * its own seed, so shards together approximate the whole process; for k = 1 they make exactly
 * a Poisson process of the full rate). The first arrival comes after one gap, as in a renewal
 * process started at 0.
 */
export function createGammaSchedule(load: GammaLoad, seed: number, shard: ShardSpec = WHOLE): ArrivalSchedule {
  const durationNs = load.durationMs * 1e6;
  const rate = load.ratePerS / shard.count;
  const shape = load.burstiness;
  const gamma = createGammaSampler(shape, createRandom(shardSeed(seed, shard.index)));
  // Gamma(k, 1) / (k·rate) has mean 1/rate.
  const nsPerUnit = NS_PER_S / (shape * rate);
  let t = 0;
  return {
    durationNs,
    next() {
      if (rate <= 0 || t >= durationNs) return Infinity;
      t += gamma() * nsPerUnit;
      return t < durationNs ? t : Infinity;
    },
    rateAt: () => rate,
  };
}
