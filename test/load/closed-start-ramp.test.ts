/**
 * A closed model of many workers starts `STARTS_AT_ONCE` at once and the rest at
 * `STARTS_PER_SECOND` on the injected clock, each at its actual start (no latency from the
 * ramp); 10,000 workers do not open 10,000 connections in a few turns of the loop. Stopping
 * during the ramp starts no more.
 */
import { describe, expect, it } from 'vitest';
import { createFakeClock, NS_PER_MS, NS_PER_S } from '../../src/core/clock.js';
import { createExecutor } from '../../src/load/index.js';
import { STARTS_AT_ONCE, STARTS_PER_SECOND } from '../../src/load/closed-executor.js';
import { controlledJob } from './helpers.js';

const closed = (concurrency: number) => ({ executor: 'constant-concurrency' as const, concurrency, durationMs: 60_000, gracefulStopMs: 0 });

describe('constant-concurrency start', () => {
  it('starts STARTS_AT_ONCE at once, then STARTS_PER_SECOND, each at its actual start', () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const total = STARTS_AT_ONCE + 2 * STARTS_PER_SECOND + 7;
    const ex = createExecutor(closed(total), { clock, job: c.job });
    ex.start();
    expect(c.open).toBe(STARTS_AT_ONCE);
    clock.advance(NS_PER_S);
    // Started on the ramp's ticks: never ahead of the rate, behind it by at most one tick.
    expect(c.open).toBeLessThanOrEqual(STARTS_AT_ONCE + STARTS_PER_SECOND);
    expect(c.open).toBeGreaterThanOrEqual(STARTS_AT_ONCE + STARTS_PER_SECOND - STARTS_PER_SECOND / 200);
    clock.advance(NS_PER_S + 10 * NS_PER_MS);
    expect(c.open).toBe(total);
    expect(ex.stats().started).toBe(total);
    // Each worker's intended start is when it started: the first batch at 0, the rest on the ramp, in order.
    expect(c.intended.slice(0, STARTS_AT_ONCE).every((t) => t === 0)).toBe(true);
    const later = c.intended.slice(STARTS_AT_ONCE);
    expect(later.every((t, i) => t > 0 && (i === 0 || t >= (later[i - 1] as number)))).toBe(true);
    // No worker starts before the ramp allows it.
    later.forEach((t, i) => expect(STARTS_AT_ONCE + Math.floor((t * STARTS_PER_SECOND) / NS_PER_S)).toBeGreaterThanOrEqual(STARTS_AT_ONCE + i + 1));
  });

  it('starts a few hundred workers at once', () => {
    const clock = createFakeClock();
    const c = controlledJob();
    createExecutor(closed(STARTS_AT_ONCE), { clock, job: c.job }).start();
    expect(c.open).toBe(STARTS_AT_ONCE);
    expect(clock.pending()).toBe(1); // the end of the schedule only
  });

  it('starts at most STARTS_AT_ONCE in one tick, however late the tick runs', () => {
    const fake = createFakeClock();
    // A loop stalled for 2 s: time moves on, the first tick runs only afterwards.
    let stallNs = 0;
    const clock = { ...fake, nowNs: () => fake.nowNs() + stallNs };
    const c = controlledJob();
    createExecutor(closed(10_000), { clock, job: c.job }).start();
    stallNs = 2 * NS_PER_S;
    fake.advance(4 * NS_PER_MS);
    // That one late tick starts one batch, not the 5,000 due.
    expect(c.open).toBe(2 * STARTS_AT_ONCE);
  });

  it('starts no more workers once stopped during the ramp', () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(closed(3 * STARTS_AT_ONCE), { clock, job: c.job });
    ex.start();
    ex.stop();
    clock.runUntilIdle();
    expect(c.open).toBe(STARTS_AT_ONCE);
    expect(ex.stats().phase).toBe('draining');
  });
});
