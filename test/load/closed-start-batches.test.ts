/**
 * A closed model of many workers starts them a batch per turn of the event loop (a timer due
 * now), so 10,000 workers do not hold the loop in one synchronous start; stopping during the
 * ramp starts no more.
 */
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { createExecutor } from '../../src/load/index.js';
import { STARTS_PER_TURN } from '../../src/load/closed-executor.js';
import { controlledJob } from './helpers.js';

const closed = (concurrency: number) => ({ executor: 'constant-concurrency' as const, concurrency, durationMs: 10_000, gracefulStopMs: 0 });

describe('constant-concurrency start', () => {
  it('starts a batch of workers per turn until all run, each at its actual start', () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(closed(2.5 * STARTS_PER_TURN), { clock, job: c.job });
    ex.start();
    // The first batch at once, the rest behind a timer due now (the next turn).
    expect(c.open).toBe(STARTS_PER_TURN);
    let turns = 0;
    while (c.open < 2.5 * STARTS_PER_TURN && turns < 10) {
      turns++;
      clock.runUntilIdle(clock.nowNs());
    }
    expect(c.open).toBe(2.5 * STARTS_PER_TURN);
    expect(c.intended.every((t) => t === 0)).toBe(true);
    expect(ex.stats().started).toBe(2.5 * STARTS_PER_TURN);
  });

  it('starts no more workers once stopped during the ramp', () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(closed(3 * STARTS_PER_TURN), { clock, job: c.job });
    ex.start();
    ex.stop();
    clock.runUntilIdle();
    expect(c.open).toBe(STARTS_PER_TURN);
    expect(ex.stats().phase).toBe('draining');
  });
});
