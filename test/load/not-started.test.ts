/** A job that had nothing to start (`NOT_STARTED`) is taken back: not started, not lagging, and a closed-model worker stops. */
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { createExecutor, NOT_STARTED, type Executor, type Job } from '../../src/load/index.js';
import { flush } from './helpers.js';

/** A job with `rows` things to do; the first start past them stops the executor, as the engine does. */
function limitedJob(rows: number, executor: () => Executor): { job: Job; ran: () => number } {
  let ran = 0;
  return {
    ran: () => ran,
    job: () => {
      if (ran === rows) {
        executor().stop();
        return NOT_STARTED;
      }
      ran++;
      return Promise.resolve();
    },
  };
}

describe('NOT_STARTED', () => {
  it('open model: 5 rows at 20/s: 5 started, 5 lags recorded, finished at the stop', async () => {
    const clock = createFakeClock();
    let ex!: Executor;
    const j = limitedJob(5, () => ex);
    ex = createExecutor({ executor: 'constant-arrival-rate', ratePerS: 20, durationMs: 2000, maxInFlight: 10, gracefulStopMs: 0 }, { clock, job: j.job });
    ex.start();
    for (let i = 0; i < 10; i++) {
      clock.advance(50e6);
      await flush();
    }
    const st = ex.stats();
    expect(j.ran()).toBe(5);
    expect([st.started, st.dropped, st.scheduled, st.completed, st.inFlight]).toEqual([5, 0, 5, 5, 0]);
    expect(st.scheduleLag.count).toBe(5);
    expect(st.phase).toBe('finished');
  });

  it('closed model: 3 workers, 5 rows: 5 started, no worker spins on the sixth', async () => {
    const clock = createFakeClock();
    let ex!: Executor;
    const j = limitedJob(5, () => ex);
    ex = createExecutor({ executor: 'constant-concurrency', concurrency: 3, durationMs: 2000, gracefulStopMs: 0 }, { clock, job: j.job });
    ex.start();
    await flush();
    await ex.finished;
    const st = ex.stats();
    expect(j.ran()).toBe(5);
    expect([st.started, st.completed, st.inFlight]).toEqual([5, 5, 0]);
    expect(st.scheduleLag.count).toBe(5);
  });
});
