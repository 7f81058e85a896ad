/**
 * An executor started at an offset into its schedule (a shard that came up after `--start-at`)
 * joins the schedule in phase: the arrivals due before the offset are counted as missed and not
 * sent, every later one comes at the instant an executor started on time would have sent it.
 * The truth each case is held to is the same executor started on time on another fake clock.
 */
import { describe, expect, it } from 'vitest';
import { createFakeClock, NS_PER_MS } from '../../src/core/clock.js';
import { createExecutor, type ResolvedLoad } from '../../src/load/index.js';
import { controlledJob, flush, instantJob } from './helpers.js';

const constant: ResolvedLoad = { executor: 'constant-arrival-rate', ratePerS: 10, durationMs: 2000, maxInFlight: 1000, gracefulStopMs: 0 };
const ramp: ResolvedLoad = { executor: 'ramping-arrival-rate', startRatePerS: 0, stages: [{ durationMs: 2000, targetRatePerS: 20 }, { durationMs: 1000, targetRatePerS: 20 }], maxInFlight: 1000, gracefulStopMs: 0 };
const poisson: ResolvedLoad = { executor: 'poisson', ratePerS: 40, durationMs: 2000, maxInFlight: 1000, burstiness: 1, gracefulStopMs: 0 };

/** Every intended instant of `load` (shard `shard`), as offsets from the schedule's origin, started on time. */
function onTime(load: ResolvedLoad, shard = { index: 0, count: 1 }): number[] {
  const clock = createFakeClock({ startNs: 0 });
  const seen: number[] = [];
  createExecutor(load, { clock, job: instantJob(seen), shard }).start();
  clock.runUntilIdle();
  return seen;
}

describe('an executor started at an offset into its schedule', () => {
  for (const [name, load] of [['constant-arrival-rate', constant], ['ramping-arrival-rate', ramp], ['poisson', poisson]] as const) {
    it(`${name}: sends exactly the on-time arrivals from the offset on, at their instants, and counts the rest as missed`, async () => {
      for (const shard of [{ index: 0, count: 1 }, { index: 1, count: 3 }]) {
        const truth = onTime(load, shard);
        const offsetMs = 730;
        // Joined at wall instant 50 s on its own clock: the schedule's origin lies 730 ms before.
        const startNs = 50e9;
        const clock = createFakeClock({ startNs });
        const seen: number[] = [];
        const ex = createExecutor(load, { clock, job: instantJob(seen), shard, startOffsetMs: offsetMs });
        ex.start();
        clock.runUntilIdle();
        await flush();
        const origin = startNs - offsetMs * NS_PER_MS;
        const expected = truth.filter((t) => t >= offsetMs * NS_PER_MS);
        // The same instants (to within a float's rounding of the origin added and taken away).
        expect(seen).toHaveLength(expected.length);
        expect(Math.max(0, ...seen.map((t, i) => Math.abs(t - origin - (expected[i] as number))))).toBeLessThan(1);
        const s = ex.stats();
        expect(s.missed).toBe(truth.length - expected.length);
        expect(s.missed).toBeGreaterThan(0);
        expect(s.started).toBe(expected.length);
        // The part of the schedule it ran, so started / elapsed is its own achieved rate.
        expect(s.elapsedNs).toBe(ex.durationMs * NS_PER_MS - offsetMs * NS_PER_MS);
        expect(s.scheduleLag.max).toBe(0);
        expect(s.phase).toBe('finished');
      }
    });
  }

  it('reports the target rate at its place in the schedule, not from its own start', () => {
    const clock = createFakeClock();
    const ex = createExecutor(ramp, { clock, job: instantJob([]), startOffsetMs: 1000 });
    ex.start();
    // 1 s into a 0 → 20/s ramp over 2 s: 10/s.
    expect(ex.stats().targetRatePerS).toBeCloseTo(10, 9);
    clock.advance(500 * NS_PER_MS);
    expect(ex.stats().targetRatePerS).toBeCloseTo(15, 9);
    ex.stop();
  });

  it('at or past the schedule\'s end sends nothing, misses every arrival and ends at once', async () => {
    const clock = createFakeClock();
    const seen: number[] = [];
    const ex = createExecutor(constant, { clock, job: instantJob(seen), startOffsetMs: 2000 });
    ex.start();
    await ex.finished;
    expect(seen).toEqual([]);
    expect(ex.stats()).toMatchObject({ started: 0, missed: 20, elapsedNs: 0, phase: 'finished' });
  });

  it('an offset of 0 is the executor started on time', () => {
    const clock = createFakeClock({ startNs: 0 });
    const seen: number[] = [];
    createExecutor(constant, { clock, job: instantJob(seen), startOffsetMs: 0 }).start();
    clock.runUntilIdle();
    expect(seen).toEqual(onTime(constant));
  });

  it('the closed model: workers start at once and stop at the schedule\'s end, running that much less; nothing missed', async () => {
    const load: ResolvedLoad = { executor: 'constant-concurrency', concurrency: 3, durationMs: 2000, gracefulStopMs: 0 };
    const clock = createFakeClock({ startNs: 0 });
    const c = controlledJob();
    const ex = createExecutor(load, { clock, job: c.job, startOffsetMs: 1500 });
    ex.start();
    expect(c.open).toBe(3);
    clock.advance(400 * NS_PER_MS);
    c.settle();
    await flush();
    expect(ex.stats().phase).toBe('running');
    // 500 ms after its start the schedule (origin 1.5 s before the start) is over.
    clock.advance(100 * NS_PER_MS);
    expect(ex.stats().phase).not.toBe('running');
    c.settle();
    await ex.finished;
    expect(ex.stats()).toMatchObject({ started: 6, missed: 0, elapsedNs: 500 * NS_PER_MS });
  });

  it('the closed model past its end starts no worker', async () => {
    const load: ResolvedLoad = { executor: 'constant-concurrency', concurrency: 3, durationMs: 2000, gracefulStopMs: 0 };
    const clock = createFakeClock();
    const c = controlledJob();
    const ex = createExecutor(load, { clock, job: c.job, startOffsetMs: 2500 });
    ex.start();
    await ex.finished;
    expect(ex.stats()).toMatchObject({ started: 0, missed: 0 });
  });

  it('refuses an offset that is not a finite number >= 0', () => {
    const clock = createFakeClock();
    for (const bad of [-1, Number.NaN, Infinity]) {
      expect(() => createExecutor(constant, { clock, job: instantJob([]), startOffsetMs: bad })).toThrow(/startOffsetMs must be a finite number >= 0/);
    }
  });
});
