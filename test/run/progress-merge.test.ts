import { describe, expect, it } from 'vitest';
import { mergeProgress, type RunProgress } from '../../src/run/index.js';

const part = (o: Partial<RunProgress>): RunProgress => ({
  elapsedS: 1,
  totalS: 10,
  started: 0,
  completed: 0,
  dropped: 0,
  inFlight: 0,
  ratePerS: 0,
  p50Ms: 0,
  p99Ms: 0,
  errors: 0,
  responses429: 0,
  ...o,
});

describe('mergeProgress (the live line of a run split over workers)', () => {
  it('adds counts and rates, takes the slowest worker\'s percentiles, and recomputes availability', () => {
    const m = mergeProgress([
      part({ elapsedS: 3, started: 100, completed: 90, inFlight: 10, ratePerS: 50, p50Ms: 2, p99Ms: 9, good: 89, bad: 1, errors: 1 }),
      part({ elapsedS: 4, started: 101, completed: 99, inFlight: 2, ratePerS: 51, p50Ms: 3, p99Ms: 7, good: 99, bad: 0, responses429: 4 }),
    ]);
    expect(m).toMatchObject({ elapsedS: 4, started: 201, completed: 189, inFlight: 12, ratePerS: 101, p50Ms: 3, p99Ms: 9, good: 188, bad: 1, errors: 1, responses429: 4, requests: 189 });
    expect(m?.availability).toBeCloseTo(188 / 189, 12);
    expect(m?.iterations).toBeUndefined();
  });

  it('adds journey iterations when workers report them, and has no availability before any answer', () => {
    const m = mergeProgress([part({ iterations: { ended: 3, failed: 1 } }), part({ iterations: { ended: 4, failed: 0 } })]);
    expect(m?.iterations).toEqual({ ended: 7, failed: 1 });
    expect(m?.availability).toBeNull();
  });

  it('has nothing to say before any worker ticked', () => {
    expect(mergeProgress([])).toBeUndefined();
  });
});
