/**
 * The open model on a clock that, like the system clock, sleeps in whole milliseconds: at
 * 5,000/s (an arrival every 0.2 ms) it wakes about once a millisecond, releases every arrival
 * that is due on each wake, and hands each its own intended instant, so the rate and the
 * spacing of intended starts are the schedule's and only the lag grows (under a millisecond).
 */
import { describe, expect, it } from 'vitest';
import { createFakeClock, NS_PER_MS, type Clock } from '../../src/core/clock.js';
import { createExecutor } from '../../src/load/index.js';
import { instantJob } from './helpers.js';

/** A fake clock whose timers for a future instant fire on the next whole millisecond at or after it. */
function millisecondClock(): { clock: Clock; wakes: () => number; advance: (ns: number) => void } {
  const fake = createFakeClock();
  let wakes = 0;
  const clock: Clock = {
    ...fake,
    setTimer: (atNs, fn) => {
      const now = fake.nowNs();
      const at = atNs <= now ? now : Math.ceil(atNs / NS_PER_MS) * NS_PER_MS;
      return fake.setTimer(at, () => {
        wakes++;
        fn();
      });
    },
  };
  return { clock, wakes: () => wakes, advance: (ns) => fake.advance(ns) };
}

describe('open model on millisecond wakes', () => {
  it.each(['constant-arrival-rate', 'poisson'] as const)('%s at 5,000/s releases every due arrival per wake, with its own intended instant', (executor) => {
    const { clock, wakes, advance } = millisecondClock();
    const seen: number[] = [];
    const starts: number[] = [];
    const job = instantJob(seen);
    const load =
      executor === 'poisson'
        ? { executor, ratePerS: 5000, durationMs: 2000, burstiness: 1, maxInFlight: 100_000, gracefulStopMs: 0 }
        : { executor, ratePerS: 5000, durationMs: 2000, maxInFlight: 100_000, gracefulStopMs: 0 };
    const ex = createExecutor(load, {
      clock,
      seed: 1,
      job: (intended, signal) => {
        starts.push(clock.nowNs());
        return job(intended, signal);
      },
    });
    ex.start();
    advance(3e9);
    if (executor === 'constant-arrival-rate') {
      expect(seen).toHaveLength(10_000);
      seen.forEach((t, i) => expect(t).toBe((i * 1e9) / 5000));
    } else {
      expect(Math.abs(seen.length - 10_000)).toBeLessThan(400);
    }
    // About one wake per millisecond of schedule, not one per arrival.
    expect(wakes()).toBeLessThanOrEqual(2001);
    // Never early; late by less than the millisecond the wake was rounded to.
    const lags = starts.map((s, i) => s - (seen[i] as number));
    expect(Math.min(...lags)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...lags)).toBeLessThan(NS_PER_MS);
    expect(ex.stats().scheduleLag.max).toBeLessThanOrEqual(1);
  });
});
