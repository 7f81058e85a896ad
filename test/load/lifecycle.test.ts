import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { createExecutor, type Job, type ResolvedLoad } from '../../src/load/index.js';
import { controlledJob, flush } from './helpers.js';

const constant: ResolvedLoad = {
  executor: 'constant-arrival-rate',
  ratePerS: 10,
  durationMs: 10_000,
  maxInFlight: 1000,
  gracefulStopMs: 0,
};

describe('executor lifecycle', () => {
  it('stops scheduling on stop() while in-flight jobs go on to finish', async () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(constant, { clock, job: c.job });
    let finished = false;
    void ex.finished.then(() => (finished = true));
    ex.start();
    clock.advance(450e6);
    expect(c.intended).toHaveLength(5);
    ex.stop();
    expect(ex.stats().phase).toBe('draining');
    clock.advance(5e9);
    expect(c.intended).toHaveLength(5);
    expect(clock.pending()).toBe(0);
    expect(ex.stats().elapsedNs).toBe(450e6);
    await flush();
    expect(finished).toBe(false);
    c.settle();
    await flush();
    expect(finished).toBe(true);
    expect(ex.stats()).toMatchObject({ phase: 'finished', started: 5, completed: 5, inFlight: 0 });
  });

  it('resolves scheduleEnded at the end of the duration, before in-flight jobs finish', async () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor({ ...constant, durationMs: 1000 }, { clock, job: c.job });
    const order: string[] = [];
    void ex.scheduleEnded.then(() => order.push('scheduleEnded'));
    void ex.finished.then(() => order.push('finished'));
    ex.start();
    clock.advance(999e6);
    await flush();
    expect(order).toEqual([]);
    clock.advance(1e6);
    await flush();
    expect(order).toEqual(['scheduleEnded']);
    c.settle();
    await flush();
    expect(order).toEqual(['scheduleEnded', 'finished']);
  });

  it('aborts the shared signal when the drain grace runs out', async () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(constant, { clock, job: c.job });
    ex.start();
    clock.advance(250e6);
    let drained = false;
    const drain = ex.drain(2000).then(() => (drained = true));
    expect(c.signals.every((s) => !s.aborted)).toBe(true);
    clock.advance(1999e6);
    await flush();
    expect(drained).toBe(false);
    expect(c.signals[0]?.aborted).toBe(false);
    clock.advance(1e6);
    await drain;
    expect(c.signals).toHaveLength(3);
    expect(c.signals.every((s) => s.aborted)).toBe(true);
    // One controller for the whole run.
    expect(new Set(c.signals).size).toBe(1);
  });

  it('resolves drain without aborting when jobs finish within the grace', async () => {
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(constant, { clock, job: c.job });
    ex.start();
    clock.advance(150e6);
    ex.stop();
    const drain = ex.drain(5000);
    c.settle();
    await drain;
    expect(c.signals[0]?.aborted).toBe(false);
    expect(clock.pending()).toBe(0);
    expect(ex.stats().phase).toBe('finished');
  });

  it('counts jobs that throw, reject or return no promise as completed', async () => {
    const clock = createFakeClock();
    let n = 0;
    const job = ((): unknown => {
      n++;
      if (n % 3 === 0) throw new Error('boom');
      if (n % 3 === 1) return Promise.reject(new Error('nope'));
      return 42;
    }) as unknown as Job;
    const ex = createExecutor({ ...constant, durationMs: 1000 }, { clock, job });
    ex.start();
    clock.advance(1e9);
    await ex.finished;
    expect(ex.stats()).toMatchObject({ started: 10, completed: 10, inFlight: 0, dropped: 0 });
  });

  it('refuses to start twice and drains at once when never started', async () => {
    const clock = createFakeClock();
    const ex = createExecutor(constant, { clock, job: controlledJob().job });
    await ex.drain(1000);
    expect(ex.stats().phase).toBe('finished');
    const ex2 = createExecutor(constant, { clock, job: controlledJob().job });
    ex2.start();
    expect(() => ex2.start()).toThrow(InvalidArgumentError);
    ex2.stop();
  });

  it('rejects loads and shards that cannot run', () => {
    const clock = createFakeClock();
    const job = controlledJob().job;
    const bad: ResolvedLoad[] = [
      { ...constant, ratePerS: 0 },
      { ...constant, durationMs: Number.NaN },
      { ...constant, maxInFlight: 0 },
      { ...constant, maxInFlight: 1.5 },
      { executor: 'poisson', ratePerS: 1, durationMs: 1, maxInFlight: 1, burstiness: 0.05, gracefulStopMs: 0 },
      { executor: 'ramping-arrival-rate', startRatePerS: 0, stages: [], maxInFlight: 1, gracefulStopMs: 0 },
      {
        executor: 'ramping-arrival-rate',
        startRatePerS: 0,
        stages: [{ durationMs: 0, targetRatePerS: 5 }],
        maxInFlight: 1,
        gracefulStopMs: 0,
      },
      { executor: 'constant-concurrency', concurrency: 0, durationMs: 1000, gracefulStopMs: 0 },
    ];
    for (const load of bad) expect(() => createExecutor(load, { clock, job })).toThrow(InvalidArgumentError);
    for (const shard of [
      { index: 2, count: 2 },
      { index: -1, count: 2 },
      { index: 0, count: 0 },
    ]) {
      expect(() => createExecutor(constant, { clock, job, shard })).toThrow(InvalidArgumentError);
    }
    const ex = createExecutor(constant, { clock, job });
    expect(() => ex.drain(-1)).toThrow(InvalidArgumentError);
  });
});
