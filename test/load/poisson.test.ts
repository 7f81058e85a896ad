import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { createExecutor, createGammaSampler, createRandom } from '../../src/load/index.js';
import type { PoissonLoad } from '../../src/load/executors/poisson.js';
import { instantJob } from './helpers.js';

const poisson = (ratePerS: number, durationMs: number, burstiness = 1): PoissonLoad => ({
  executor: 'poisson',
  ratePerS,
  durationMs,
  burstiness,
  maxInFlight: 100_000,
  gracefulStopMs: 0,
});

function run(load: PoissonLoad, seed: number, shard?: { index: number; count: number }): number[] {
  const clock = createFakeClock();
  const seen: number[] = [];
  const ex = createExecutor(load, { clock, job: instantJob(seen), seed, ...(shard ? { shard } : {}) });
  ex.start();
  clock.runUntilIdle();
  return seen;
}

function gapCv(instants: number[]): number {
  const gaps = instants.slice(1).map((t, i) => t - (instants[i] as number));
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const variance = gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length;
  return Math.sqrt(variance) / mean;
}

describe('poisson', () => {
  it('keeps the mean rate within statistical tolerance for a seeded run', () => {
    const seen = run(poisson(100, 100_000), 42);
    // Expected 10 000 arrivals, standard deviation 100: allow 4σ.
    expect(Math.abs(seen.length - 10_000)).toBeLessThan(400);
    expect(seen.every((t) => t >= 0 && t < 100e9)).toBe(true);
    expect(gapCv(seen)).toBeGreaterThan(0.9);
    expect(gapCv(seen)).toBeLessThan(1.1);
  });

  it('repeats the same schedule for the same seed and differs for another', () => {
    const a = run(poisson(50, 2000), 7);
    const b = run(poisson(50, 2000), 7);
    const c = run(poisson(50, 2000), 8);
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });

  it('raises the coefficient of variation of gaps with burstiness below 1, keeping the rate', () => {
    const bursty = run(poisson(100, 100_000, 0.25), 3);
    const steady = run(poisson(100, 100_000, 4), 3);
    // CV = 1/√k: 2 for k = 0.25, 0.5 for k = 4.
    expect(gapCv(bursty)).toBeGreaterThan(1.7);
    expect(gapCv(bursty)).toBeLessThan(2.3);
    expect(gapCv(steady)).toBeGreaterThan(0.45);
    expect(gapCv(steady)).toBeLessThan(0.55);
    expect(Math.abs(bursty.length - 10_000)).toBeLessThan(800);
    expect(Math.abs(steady.length - 10_000)).toBeLessThan(200);
  });

  it('gives each shard its share of the rate with a seed of its own', () => {
    const shards = [0, 1, 2, 3].map((index) => run(poisson(100, 50_000), 9, { index, count: 4 }));
    for (const s of shards) expect(Math.abs(s.length - 1250)).toBeLessThan(150);
    expect(shards[0]).not.toEqual(shards[1]);
    const total = shards.reduce((n, s) => n + s.length, 0);
    expect(Math.abs(total - 5000)).toBeLessThan(300);
  });
});

describe('gamma sampler', () => {
  it('has mean and variance equal to its shape', () => {
    for (const shape of [0.1, 0.5, 1, 3, 20]) {
      const sample = createGammaSampler(shape, createRandom(shape * 1000));
      const n = 50_000;
      let sum = 0;
      let sumSq = 0;
      let min = Infinity;
      for (let i = 0; i < n; i++) {
        const x = sample();
        min = Math.min(min, x);
        sum += x;
        sumSq += x * x;
      }
      const mean = sum / n;
      const variance = sumSq / n - mean * mean;
      expect(min).toBeGreaterThanOrEqual(0);
      expect(mean / shape).toBeGreaterThan(0.95);
      expect(mean / shape).toBeLessThan(1.05);
      expect(variance / shape).toBeGreaterThan(0.85);
      expect(variance / shape).toBeLessThan(1.15);
    }
  });

  it('draws uniform numbers in [0, 1) deterministically', () => {
    const a = createRandom(123);
    const b = createRandom(123);
    let sum = 0;
    let mismatches = 0;
    let outOfRange = 0;
    for (let i = 0; i < 10_000; i++) {
      const x = a();
      if (x !== b()) mismatches++;
      if (!(x >= 0 && x < 1)) outOfRange++;
      sum += x;
    }
    expect(mismatches).toBe(0);
    expect(outOfRange).toBe(0);
    expect(sum / 10_000).toBeCloseTo(0.5, 1);
  });
});
