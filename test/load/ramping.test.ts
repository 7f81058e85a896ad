import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { createExecutor, createRampingSchedule, type RampStage } from '../../src/load/index.js';
import type { RampingArrivalRateLoad } from '../../src/load/executors/ramping-arrival-rate.js';
import { instantJob } from './helpers.js';

const ramp = (startRatePerS: number, stages: RampStage[]): RampingArrivalRateLoad => ({
  executor: 'ramping-arrival-rate',
  startRatePerS,
  stages,
  maxInFlight: 10_000,
  gracefulStopMs: 0,
});

function run(load: RampingArrivalRateLoad, shard?: { index: number; count: number }): number[] {
  const clock = createFakeClock();
  const seen: number[] = [];
  const ex = createExecutor(load, { clock, job: instantJob(seen), ...(shard ? { shard } : {}) });
  ex.start();
  clock.runUntilIdle();
  return seen;
}

describe('ramping-arrival-rate', () => {
  it('starts 50 arrivals on a 0 → 10/s ramp over 10 s, arrival i at √(2i) s', () => {
    const seen = run(ramp(0, [{ durationMs: 10_000, targetRatePerS: 10 }]));
    expect(seen).toHaveLength(50);
    seen.forEach((t, i) => expect(t / 1e9).toBeCloseTo(Math.sqrt(2 * i), 9));
  });

  it('follows a flat stage exactly like a constant rate', () => {
    const seen = run(ramp(4, [{ durationMs: 2000, targetRatePerS: 4 }]));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => i * 250e6));
  });

  it('holds the integral of the rate over several stages, ramp down included', () => {
    // ∫: 0→20 over 5 s = 50, hold 20 for 5 s = 100, 20→0 over 5 s = 50.
    const seen = run(
      ramp(0, [
        { durationMs: 5000, targetRatePerS: 20 },
        { durationMs: 5000, targetRatePerS: 20 },
        { durationMs: 5000, targetRatePerS: 0 },
      ]),
    );
    expect(seen).toHaveLength(200);
    // Arrival 50 is exactly at the first stage boundary, 150 at the second.
    expect(seen[50]).toBeCloseTo(5e9, -1);
    expect(seen[150]).toBeCloseTo(10e9, -1);
    // Ramp down: arrival 150 + j at 10 + τ with 20τ − 2τ² = j.
    const j = 30;
    const tau = (20 - Math.sqrt(400 - 8 * j)) / 4;
    expect((seen[150 + j] as number) / 1e9).toBeCloseTo(10 + tau, 9);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] as number);
  });

  it('treats a zero-length stage as a step of the rate', () => {
    const seen = run(
      ramp(0, [
        { durationMs: 0, targetRatePerS: 10 },
        { durationMs: 1000, targetRatePerS: 10 },
      ]),
    );
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => i * 100e6));
  });

  it('reports the target rate along the ramp', () => {
    const schedule = createRampingSchedule(0, [{ durationMs: 10_000, targetRatePerS: 10 }]);
    expect(schedule.rateAt(0)).toBe(0);
    expect(schedule.rateAt(5e9)).toBeCloseTo(5, 12);
    expect(schedule.rateAt(20e9)).toBe(10);
    expect(schedule.durationNs).toBe(10e9);
  });

  it('produces the full schedule from its shards', () => {
    const load = ramp(1, [
      { durationMs: 3000, targetRatePerS: 17 },
      { durationMs: 2000, targetRatePerS: 3 },
    ]);
    const full = run(load);
    const union = [0, 1, 2].flatMap((index) => run(load, { index, count: 3 }));
    expect(union.sort((a, b) => a - b)).toEqual(full);
  });
});
