import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { decodeHistogram, toPct } from '../../src/collect/histogram.js';
import type { RequestSample } from '../../src/core/types.js';
import { MS, S, exactPercentile, rl, sample, streamTiming } from './samples.js';

const RUN0 = 5 * S; // an arbitrary monotonic origin

describe('collectors', () => {
  it('counts per operation and gives percentiles within HDR precision, from the intended start', () => {
    const c = createCollectors({ runStartNs: RUN0 });
    const runMs: number[] = [];
    for (let i = 0; i < 500; i++) {
      const latency = 1 + ((i * 37) % 400); // ms
      runMs.push(latency);
      const intended = RUN0 + i * 10 * MS;
      // Started 3 ms late (schedule lag): latency still counts from the intended start.
      c.observe(sample({ intendedNs: intended, startNs: intended + 3 * MS, headersNs: intended + latency * MS, endNs: intended + latency * MS }));
    }
    c.observe(sample({ op: 'getFlow', intendedNs: RUN0, startNs: RUN0, endNs: RUN0 + 2 * MS, status: 404, errorCode: 'NOT_FOUND' }));
    c.observe(sample({ op: 'getFlow', intendedNs: RUN0, startNs: RUN0, endNs: RUN0 + 2 * MS, status: 404, errorCode: 'NOT_FOUND', negative: true }));
    c.observe(sample({ op: 'getFlow', intendedNs: RUN0, startNs: RUN0, endNs: RUN0 + 30 * S, status: 0, errorCode: 'HEADERS_TIMEOUT' }));
    const s = c.snapshot(RUN0 + 10 * S);
    const run = s.ops.run!;
    expect(run).toMatchObject({ count: 500, good: 500, bad: 0, excluded: 0, statuses: { '200': 500 }, errors: {} });
    const sorted = [...runMs].sort((a, b) => a - b);
    for (const [q, got] of [[50, run.latencyMs.p50], [90, run.latencyMs.p90], [99, run.latencyMs.p99], [100, run.latencyMs.max]] as const) {
      const exact = exactPercentile(sorted, q);
      expect(Math.abs(got - exact)).toBeLessThanOrEqual(exact * 0.001);
    }
    expect(s.ops.getFlow).toMatchObject({
      count: 3,
      good: 0,
      bad: 2,
      excluded: 1,
      statuses: { '404': 2 },
      errors: { NOT_FOUND: 2, HEADERS_TIMEOUT: 1 },
    });
    expect(s.totals).toEqual({ requests: 503, good: 500, bad: 2, excluded: 1, cut: 0 });
    expect(Object.keys(s.histograms).sort()).toEqual(['getFlow.latency', 'run.latency']);
    expect(toPct(decodeHistogram(s.histograms['run.latency']!))).toEqual(run.latencyMs);
  });

  it('returns the verdict of each sample', () => {
    const c = createCollectors({ runStartNs: 0 });
    expect(c.observe(sample())).toEqual({ sli: 'good', throttle: 'none' });
    expect(c.observe(sample({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' }))).toEqual({ sli: 'bad', throttle: 'none' });
    expect(c.observe(sample({ status: 429, errorCode: 'RATE_LIMITED', rateLimit: rl(100, 0, 30) }))).toEqual({ sli: 'bad', throttle: 'premature' });
    for (let i = 0; i < 100; i++) c.observe(sample({ startNs: i, rateLimit: rl(100, 99 - i, 30) }));
    // Sent after all hundred were answered (5 ms): the limit was surely used.
    expect(c.observe(sample({ startNs: 6 * MS, headersNs: 7 * MS, status: 429, errorCode: 'RATE_LIMITED', rateLimit: rl(100, 0, 30) }))).toEqual({ sli: 'excluded', throttle: 'expected' });
  });

  it('slices by intended start second, with per-op serialised histograms', () => {
    const c = createCollectors({ runStartNs: RUN0 });
    // 3 requests intended in second 0, none in second 1, 2 in second 2 (one a 429, one a stream).
    c.observe(sample({ intendedNs: RUN0 + 100 * MS, endNs: RUN0 + 110 * MS }));
    c.observe(sample({ intendedNs: RUN0 + 500 * MS, endNs: RUN0 + 520 * MS }));
    // Intended in second 0, finished in second 3: still slice 0.
    c.observe(sample({ intendedNs: RUN0 + 900 * MS, endNs: RUN0 + 3200 * MS, status: 500, errorCode: 'INTERNAL_ERROR' }));
    c.observe(sample({ intendedNs: RUN0 + 2100 * MS, endNs: RUN0 + 2110 * MS, status: 429, errorCode: 'RATE_LIMITED' }));
    c.observe(sample({ op: 'stream', intendedNs: RUN0 + 2200 * MS, endNs: RUN0 + 2300 * MS, stream: streamTiming(RUN0 + 2200 * MS, { start: MS, tokens: [2 * MS], end: 100 * MS }) }));
    const slices = c.snapshot(RUN0 + 4 * S).slices;
    expect(slices.map((x) => [x.t, x.requests, x.good, x.bad, x.excluded, x.responses429])).toEqual([
      [0, 3, 2, 1, 0, 0],
      [1, 0, 0, 0, 0, 0],
      [2, 2, 1, 1, 0, 1],
    ]);
    expect(slices[0]!.ops.run!.count).toBe(3);
    const h0 = toPct(decodeHistogram(slices[0]!.ops.run!.latency));
    expect(h0.count).toBe(3);
    expect(h0.max).toBeCloseTo(2300, -1);
    expect(Object.keys(slices[2]!.ops).sort()).toEqual(['run', 'stream']);
  });

  it('serialises old slices and still merges a late sample into them exactly', () => {
    const c = createCollectors({ runStartNs: 0, sliceCloseLagMs: 1000 });
    c.observe(sample({ intendedNs: 100 * MS, endNs: 110 * MS }));
    // Time moves on: slice 0 closes.
    for (let i = 1; i <= 5; i++) c.observe(sample({ intendedNs: i * S, endNs: i * S + 10 * MS }));
    // A very slow request intended in second 0 ends now.
    c.observe(sample({ intendedNs: 200 * MS, endNs: 5 * S + 200 * MS }));
    const s0 = c.snapshot(6 * S).slices[0]!;
    expect(s0.requests).toBe(2);
    const p = toPct(decodeHistogram(s0.ops.run!.latency));
    expect(p.count).toBe(2);
    expect(p.p50).toBeCloseTo(10, 1);
    expect(p.max).toBeGreaterThanOrEqual(5000);
    expect(p.max).toBeLessThan(5000 * 1.001);
  });

  it('copies what it keeps: the engine may reuse one sample object', () => {
    const c = createCollectors({ runStartNs: 0 });
    const reused: RequestSample = sample();
    const violations = [{ op: 'run' as const, path: 'status', expected: 'one of running|completed|failed', got: '"done"' }];
    for (let i = 0; i < 4; i++) {
      reused.intendedNs = i * S;
      reused.startNs = i * S;
      reused.endNs = i * S + (i + 1) * 10 * MS;
      reused.status = i === 3 ? 503 : 200;
      reused.errorCode = i === 3 ? 'SERVICE_UNAVAILABLE' : undefined;
      reused.violations = i === 1 ? violations : [];
      c.observe(reused);
    }
    reused.status = 200;
    const s = c.snapshot(10 * S);
    expect(s.ops.run).toMatchObject({ count: 4, good: 2, bad: 2, statuses: { '200': 3, '503': 1 } });
    expect(s.ops.run!.latencyMs.max).toBeCloseTo(40, 1);
    expect(s.contractViolations).toEqual([{ ...violations[0], count: 1 }]);
    expect(s.slices.map((x) => x.requests)).toEqual([1, 1, 1, 1]);
  });

  it('bounds distinct contract violations and counts the rest', () => {
    const c = createCollectors({ runStartNs: 0, maxContractViolations: 2 });
    const v = (path: string, got: string) => ({ op: 'run' as const, path, expected: 'integer', got });
    c.observe(sample({ violations: [v('usage.total_tokens', 'string'), v('usage.prompt_tokens', 'string')] }));
    c.observe(sample({ violations: [v('usage.total_tokens', 'string')] }));
    c.observe(sample({ violations: [v('progress', '"x"'), v('progress', '"y"'), v('progress', '"x"')] }));
    const s = c.snapshot(S);
    expect(s.contractViolations).toEqual([
      { op: 'run', path: 'usage.total_tokens', expected: 'integer', got: 'string', count: 2 },
      { op: 'run', path: 'usage.prompt_tokens', expected: 'integer', got: 'string', count: 1 },
    ]);
    expect(s.contractViolationTotals).toEqual({ total: 6, droppedDistinct: 2, droppedCount: 3 });
    expect(s.totals.bad).toBe(3);
  });

  it('gives a cheap live view', () => {
    const c = createCollectors({ runStartNs: 0 });
    // 10 requests per second for 6 seconds, ending 20 ms after their start.
    for (let sec = 0; sec < 6; sec++) {
      for (let i = 0; i < 10; i++) {
        const t = sec * S + i * 100 * MS;
        c.observe(sample({ intendedNs: t, startNs: t, endNs: t + 20 * MS, status: i === 0 ? 429 : 200, errorCode: i === 0 ? 'RATE_LIMITED' : undefined }));
      }
    }
    const live = c.live(6 * S + 500 * MS);
    expect(live.requests).toBe(60);
    expect(live.responses429).toBe(6);
    expect(live.errors).toBe(6);
    expect(live.bad).toBe(6);
    expect(live.good).toBe(54);
    expect(live.recentWindowS).toBe(5);
    expect(live.recentRatePerS).toBe(10);
    expect(live.ratePerS).toBeCloseTo(60 / 6.5, 6);
    expect(live.p50Ms).toBeCloseTo(20, 1);
    expect(live.availability).toBeCloseTo(0.9, 9);
    // Nothing completed in the last 5 s of a later instant.
    expect(c.live(20 * S).recentRatePerS).toBe(0);
  });

  it('rejects nonsense options', () => {
    expect(() => createCollectors({ runStartNs: 0, objective: 99.9 })).toThrow(/objective/);
    expect(() => createCollectors({ runStartNs: 0, sliceMs: 0 })).toThrow(/sliceMs/);
    expect(() => createCollectors({ runStartNs: Number.NaN })).toThrow(/runStartNs/);
    expect(createCollectors({ runStartNs: 0 }).options).toMatchObject({ sliceMs: 1000, objective: 0.999 });
  });
});

describe('latency population', () => {
  it('leaves 429s out of every latency figure and keeps them apart in ratelimit.latency; counts and statuses keep them', () => {
    const c = createCollectors({ runStartNs: RUN0, sliceCloseLagMs: 0 });
    // Per second: 10 runs served in 100 ms (one a 503 after 100 ms, one a timeout at 100 ms), then 20 refused in 1 ms.
    for (let sec = 0; sec < 3; sec++) {
      for (let i = 0; i < 30; i++) {
        const t = RUN0 + sec * S + i * 10 * MS;
        const refused = i >= 10;
        const status = refused ? 429 : i === 3 ? 503 : i === 4 ? 0 : 200;
        const errorCode = refused ? 'RATE_LIMITED' : i === 3 ? 'SERVICE_UNAVAILABLE' : i === 4 ? 'TIMEOUT' : undefined;
        const end = t + (refused ? 1 : 100) * MS;
        c.observe(sample({ intendedNs: t, startNs: t, headersNs: status === 0 ? undefined : end, endNs: end, status, errorCode, rateLimit: rl(10, refused ? 0 : 9 - i, 1) }));
      }
    }
    const s = c.snapshot(RUN0 + 20 * S);
    const run = s.ops.run!;
    expect(run.count).toBe(90);
    expect(run.statuses).toEqual({ '200': 24, '503': 3, '429': 60 });
    expect(run.latencyMs.count).toBe(30);
    expect(run.latencyMs.p50).toBeCloseTo(100, 0);
    expect(toPct(decodeHistogram(s.histograms['run.latency']!)).count).toBe(30);
    expect(s.rateLimitLatencyMs.count).toBe(60);
    expect(s.rateLimitLatencyMs.max).toBeCloseTo(1, 2);
    expect(toPct(decodeHistogram(s.histograms['ratelimit.latency']!)).count).toBe(60);
    expect(c.view().rateLimit.latencyMs.count).toBe(60);
    // The live all-ops percentiles too.
    expect(c.live(RUN0 + 20 * S).p50Ms).toBeCloseTo(100, 0);
    // Slices: counts with the 429s, histograms without (closed ones and the open one alike).
    for (const slice of s.slices) {
      expect(slice.ops.run?.count).toBe(30);
      expect(slice.responses429).toBe(20);
      expect(toPct(decodeHistogram(slice.ops.run!.latency)).count).toBe(10);
    }
    // A late 429 into a closed slice leaves its histogram as it was.
    c.observe(sample({ intendedNs: RUN0, startNs: RUN0, headersNs: RUN0 + 30 * S, endNs: RUN0 + 30 * S, status: 429, errorCode: 'RATE_LIMITED' }));
    const first = c.snapshot(RUN0 + 31 * S).slices[0]!;
    expect(first.ops.run?.count).toBe(31);
    expect(toPct(decodeHistogram(first.ops.run!.latency)).count).toBe(10);
  });

  it('has no ratelimit.latency histogram and an empty rateLimit latency without a 429', () => {
    const c = createCollectors({ runStartNs: RUN0 });
    c.observe(sample({ intendedNs: RUN0, startNs: RUN0, endNs: RUN0 + 5 * MS }));
    const s = c.snapshot(RUN0 + S);
    expect(s.histograms['ratelimit.latency']).toBeUndefined();
    expect(s.rateLimitLatencyMs.count).toBe(0);
  });
});
