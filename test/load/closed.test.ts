import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { createExecutor } from '../../src/load/index.js';
import type { ConstantConcurrencyLoad } from '../../src/load/executors/constant-concurrency.js';
import { controlledJob, flush } from './helpers.js';

const closed = (concurrency: number, durationMs = 10_000): ConstantConcurrencyLoad => ({
  executor: 'constant-concurrency',
  concurrency,
  durationMs,
  gracefulStopMs: 0,
});

describe('constant-concurrency', () => {
  it('keeps exactly N jobs in flight, each starting when one settles', async () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const starts: number[] = [];
    const ex = createExecutor(closed(4), {
      clock,
      job: (intended, signal) => {
        starts.push(clock.nowNs());
        return c.job(intended, signal);
      },
    });
    ex.start();
    expect(c.open).toBe(4);
    let settled = 0;
    for (let round = 0; round < 20; round++) {
      clock.advance(7e6);
      settled += 1 + (round % 3);
      c.settle(1 + (round % 3));
      await flush();
      expect(c.open).toBe(4);
      expect(ex.stats().inFlight).toBe(4);
    }
    expect(c.maxOpen).toBe(4);
    // Closed model: the intended start is the actual start.
    expect(c.intended).toEqual(starts);
    expect(ex.stats().started).toBe(4 + settled);
    expect(ex.stats().targetRatePerS).toBe(0);
  });

  it('stops restarting at the end of the duration', async () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(closed(3, 1000), { clock, job: c.job });
    ex.start();
    clock.advance(1e9);
    c.settle();
    await flush();
    expect(c.open).toBe(0);
    await ex.finished;
    expect(ex.stats()).toMatchObject({ started: 3, completed: 3, phase: 'finished' });
  });

  it('does not starve timers when jobs settle at once', async () => {
    const clock = createFakeClock();
    let calls = 0;
    const ex = createExecutor(closed(2, 1000), {
      clock,
      job: () => {
        calls++;
        return Promise.resolve();
      },
    });
    ex.start();
    // Restarts run in microtasks up to a budget, then wait for the next timer turn.
    await flush();
    const afterFirstTurn = calls;
    expect(afterFirstTurn).toBeGreaterThan(2);
    expect(afterFirstTurn).toBeLessThan(5000);
    clock.advance(1e9);
    await ex.finished;
    expect(ex.stats().phase).toBe('finished');
  });

  it('splits the workers among shards', () => {
    const counts = [0, 1, 2].map((index) => {
      const clock = createFakeClock();
      const c = controlledJob();
      createExecutor(closed(7), { clock, job: c.job, shard: { index, count: 3 } }).start();
      return c.open;
    });
    expect(counts).toEqual([3, 2, 2]);
  });
});
