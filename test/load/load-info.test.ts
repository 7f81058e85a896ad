import { describe, expect, it } from 'vitest';
import { EXECUTORS, createLagRecorder, isClosedModel, loadDurationMs, meanTargetRatePerS, peakTargetRatePerS, type ResolvedLoad } from '../../src/load/index.js';

const ramp: ResolvedLoad = {
  executor: 'ramping-arrival-rate',
  startRatePerS: 0,
  stages: [
    { durationMs: 10_000, targetRatePerS: 10 },
    { durationMs: 10_000, targetRatePerS: 10 },
  ],
  maxInFlight: 10,
  gracefulStopMs: 0,
};

describe('load info', () => {
  it('gives duration, mean and peak rate of each executor', () => {
    expect(loadDurationMs(ramp)).toBe(20_000);
    // 50 + 100 arrivals over 20 s.
    expect(meanTargetRatePerS(ramp)).toBe(7.5);
    expect(peakTargetRatePerS(ramp)).toBe(10);
    const constant: ResolvedLoad = { executor: 'constant-arrival-rate', ratePerS: 4, durationMs: 9000, maxInFlight: 1, gracefulStopMs: 0 };
    expect([loadDurationMs(constant), meanTargetRatePerS(constant), peakTargetRatePerS(constant)]).toEqual([9000, 4, 4]);
    const closed: ResolvedLoad = { executor: 'constant-concurrency', concurrency: 3, durationMs: 1000, gracefulStopMs: 0 };
    expect([loadDurationMs(closed), meanTargetRatePerS(closed), peakTargetRatePerS(closed)]).toEqual([1000, 0, 0]);
  });
});

describe('isClosedModel', () => {
  it('is true for the closed model alone', () => {
    const loads: ResolvedLoad[] = [
      ramp,
      { executor: 'constant-arrival-rate', ratePerS: 4, durationMs: 9000, maxInFlight: 1, gracefulStopMs: 0 },
      { executor: 'poisson', ratePerS: 4, durationMs: 9000, maxInFlight: 1, burstiness: 1, gracefulStopMs: 0 },
      { executor: 'constant-concurrency', concurrency: 3, durationMs: 1000, gracefulStopMs: 0 },
    ];
    expect(loads.map((l) => l.executor).sort()).toEqual([...EXECUTORS].sort());
    expect(loads.filter(isClosedModel).map((l) => l.concurrency)).toEqual([3]);
  });
});

describe('lag recorder', () => {
  it('summarises lags in ms from a microsecond histogram', () => {
    const r = createLagRecorder();
    expect(r.summary()).toMatchObject({ count: 0, max: 0, p99: 0 });
    for (let i = 1; i <= 1000; i++) r.record(i * 1e6);
    r.record(-5);
    const s = r.summary();
    expect(s.count).toBe(1001);
    expect(s.max).toBeCloseTo(1000, 0);
    expect(s.p50).toBeCloseTo(500, -1);
    expect(s.p99).toBeCloseTo(990, -1);
    expect(s.mean).toBeCloseTo(500, -1);
    expect(r.histogram.totalCount).toBe(1001);
  });
});
