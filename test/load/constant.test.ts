import { describe, expect, it } from 'vitest';
import { createFakeClock, NS_PER_MS } from '../../src/core/clock.js';
import { createExecutor } from '../../src/load/index.js';
import type { ConstantArrivalRateLoad } from '../../src/load/executors/constant-arrival-rate.js';
import { flush, instantJob } from './helpers.js';

const load = (ratePerS: number, durationMs: number, maxInFlight = 1000): ConstantArrivalRateLoad => ({
  executor: 'constant-arrival-rate',
  ratePerS,
  durationMs,
  maxInFlight,
  gracefulStopMs: 0,
});

describe('constant-arrival-rate', () => {
  it('starts 10/s over 1 s at exactly 0, 100 ms, …, 900 ms', async () => {
    const clock = createFakeClock({ startNs: 5_000 });
    const seen: number[] = [];
    const starts: number[] = [];
    const ex = createExecutor(load(10, 1000), {
      clock,
      job: (intended) => {
        seen.push(intended);
        starts.push(clock.nowNs());
        return Promise.resolve();
      },
    });
    ex.start();
    clock.advance(2e9);
    await flush();
    const expected = Array.from({ length: 10 }, (_, i) => 5_000 + i * 100 * NS_PER_MS);
    expect(seen).toEqual(expected);
    expect(starts).toEqual(expected);
    const s = ex.stats();
    expect(s.started).toBe(10);
    expect(s.completed).toBe(10);
    expect(s.scheduleLag.max).toBe(0);
    expect(s.elapsedNs).toBe(1e9);
    expect(s.phase).toBe('finished');
  });

  it('computes each instant from its index, without drift over many arrivals', () => {
    const clock = createFakeClock();
    const seen: number[] = [];
    const ex = createExecutor(load(3, 100_000), { clock, job: instantJob(seen) });
    ex.start();
    clock.runUntilIdle();
    expect(seen).toHaveLength(300_000 / 1000);
    seen.forEach((t, i) => expect(t).toBe((i * 1e9) / 3));
  });

  it('catches up after a late wake, each arrival with its own intended time and lag', async () => {
    // A clock whose timers fire 50 ms late, like an event loop blocked by other work.
    const fake = createFakeClock();
    const lateClock = { ...fake, setTimer: (at: number, fn: () => void) => fake.setTimer(at + 50 * NS_PER_MS, fn) };
    const seen: number[] = [];
    const starts: number[] = [];
    const ex = createExecutor(load(100, 1000), {
      clock: lateClock,
      job: (intended) => {
        seen.push(intended);
        starts.push(fake.nowNs());
        return Promise.resolve();
      },
    });
    ex.start();
    fake.advanceTo(60 * NS_PER_MS);
    expect(seen).toEqual([0, 10, 20, 30, 40, 50, 60].map((ms) => ms * NS_PER_MS));
    expect(starts).toEqual([0, 60, 60, 60, 60, 60, 60].map((ms) => ms * NS_PER_MS));
    await flush();
    const lag = ex.stats().scheduleLag;
    expect(lag.count).toBe(7);
    expect(lag.max).toBeCloseTo(50, 0);
    // Lags 0, 50, 40, 30, 20, 10, 0 ms: the median is 20 ms.
    expect(lag.p50).toBeCloseTo(20, 0);
    ex.stop();
  });

  it('counts an arrival as dropped when maxInFlight jobs are in flight, never delaying it', () => {
    const clock = createFakeClock();
    const seen: number[] = [];
    const ex = createExecutor(load(10, 1000, 3), {
      clock,
      job: (intended) => {
        seen.push(intended);
        return new Promise(() => {});
      },
    });
    ex.start();
    clock.advance(1e9);
    const s = ex.stats();
    expect(s.started).toBe(3);
    expect(s.dropped).toBe(7);
    expect(s.scheduled).toBe(10);
    expect(s.inFlight).toBe(3);
    expect(seen).toEqual([0, 100, 200].map((ms) => ms * NS_PER_MS));
    expect(s.phase).toBe('draining');
  });

  it('reports its target rate, divided among shards', () => {
    const clock = createFakeClock();
    const whole = createExecutor(load(30, 1000), { clock, job: instantJob([]) });
    const shard = createExecutor(load(30, 1000), { clock, job: instantJob([]), shard: { index: 1, count: 3 } });
    expect(whole.stats().targetRatePerS).toBe(0);
    whole.start();
    shard.start();
    expect(whole.stats().targetRatePerS).toBe(30);
    expect(shard.stats().targetRatePerS).toBe(10);
    whole.stop();
    shard.stop();
  });

  it('produces the full schedule from its shards, each arrival exactly once', () => {
    const full: number[] = [];
    const c0 = createFakeClock();
    const ex = createExecutor(load(37, 2000), { clock: c0, job: instantJob(full) });
    ex.start();
    c0.runUntilIdle();
    const union: number[] = [];
    for (let index = 0; index < 4; index++) {
      const clock = createFakeClock();
      const part: number[] = [];
      const shard = createExecutor(load(37, 2000), { clock, job: instantJob(part), shard: { index, count: 4 } });
      shard.start();
      clock.runUntilIdle();
      expect(part.length).toBeGreaterThanOrEqual(Math.floor(full.length / 4));
      union.push(...part);
    }
    expect(full).toHaveLength(74);
    expect(union.sort((a, b) => a - b)).toEqual(full);
  });
});
