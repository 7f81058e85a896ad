import fc from 'fast-check';
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  countsIndexOf,
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  HIGHEST_TRACKABLE_US,
  mergeInto,
  recordNs,
  recordScaled,
  toPct,
} from '../../src/collect/histogram.js';
import { buildInt32Histogram } from '../../src/collect/hdr-library.js';
import { createRandom } from '../../src/load/prng.js';
import { exactPercentile } from './samples.js';

/** Deterministic pseudo-random latencies (ns), long-tailed like real ones. */
function latencies(n: number, seed: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const u = x / 2 ** 31;
    out.push(Math.round((1 + 200 * u ** 4) * 1e6)); // 1 ms … 201 ms
  }
  return out;
}

describe('histogram', () => {
  it('summarises in ms within 3 significant digits of exact percentiles', () => {
    const values = latencies(5000, 7);
    const h = createLatencyHistogram();
    for (const v of values) recordNs(h, v);
    const sortedMs = values.map((v) => v / 1e6).sort((a, b) => a - b);
    const p = toPct(h);
    expect(p.count).toBe(5000);
    const checks: [number, number][] = [
      [50, p.p50],
      [90, p.p90],
      [95, p.p95],
      [99, p.p99],
      [99.9, p.p999],
      [100, p.max],
    ];
    for (const [q, got] of checks) {
      const exact = exactPercentile(sortedMs, q);
      expect(Math.abs(got - exact) / exact).toBeLessThan(0.001 + 1e-9);
    }
    const mean = sortedMs.reduce((a, b) => a + b, 0) / sortedMs.length;
    expect(Math.abs(p.mean - mean) / mean).toBeLessThan(0.001);
  });

  it('gives zeros for an empty histogram', () => {
    expect(toPct(createLatencyHistogram())).toEqual({ p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, count: 0 });
  });

  it('clamps negative and over-an-hour durations but counts them', () => {
    const h = createLatencyHistogram();
    recordNs(h, -5);
    recordNs(h, 2 * 3600 * 1e9);
    const p = toPct(h);
    expect(p.count).toBe(2);
    expect(p.p50).toBe(0);
    expect(p.max).toBeGreaterThanOrEqual(3_600_000);
    expect(p.max).toBeLessThan(3_600_000 * 1.001);
  });

  it('round-trips through the compressed base64 form', () => {
    const h = createLatencyHistogram();
    for (const v of latencies(1000, 3)) recordNs(h, v);
    const s = encodeHistogram(h);
    expect(s).toMatch(/^HISTF/);
    expect(toPct(decodeHistogram(s))).toEqual(toPct(h));
  });

  it('merging decoded shards gives exactly the percentiles of one histogram that saw everything', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_600_000_000_000 }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 5 }), (values, shards) => {
        const whole = createLatencyHistogram();
        const parts = Array.from({ length: shards }, () => createLatencyHistogram());
        values.forEach((v, i) => {
          recordNs(whole, v);
          recordNs(parts[i % shards]!, v);
        });
        const merged = createLatencyHistogram();
        for (const p of parts) mergeInto(merged, decodeHistogram(encodeHistogram(p)));
        expect(toPct(merged)).toEqual(toPct(whole));
      }),
      { numRuns: 100 },
    );
  });
});

describe('toPct', () => {
  it('agrees with the library percentile walk', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_000_000_000_000 }), { minLength: 1, maxLength: 200 }), (values) => {
        const h = createLatencyHistogram();
        for (const v of values) recordNs(h, v);
        const p = toPct(h);
        const lib = (q: number): number => Math.round(h.getValueAtPercentile(q) * 1000) / 1e6;
        expect([p.p50, p.p90, p.p95, p.p99, p.p999, p.max]).toEqual([lib(50), lib(90), lib(95), lib(99), lib(99.9), lib(100)]);
        expect(p.mean).toBeCloseTo(h.mean / 1000, 6);
      }),
      { numRuns: 50 },
    );
  });
});

describe('the fast recording path', () => {
  it('finds the same counts index as the library, at every bucket edge and at random', () => {
    const h = createLatencyHistogram();
    const values: number[] = [];
    for (let v = 0; v <= 5000; v++) values.push(v);
    for (let p = 1; p < 32; p++) for (const d of [-1, 0, 1]) values.push(2 ** p + d);
    const rnd = createRandom(11);
    for (let i = 0; i < 100_000; i++) values.push(Math.floor(rnd() ** 3 * HIGHEST_TRACKABLE_US));
    values.push(HIGHEST_TRACKABLE_US);
    const wrong = values.filter((v) => v <= HIGHEST_TRACKABLE_US && countsIndexOf(h, v) !== h.countsArrayIndex(v));
    expect(wrong).toEqual([]);
  });

  it('records exactly what recordValue records (counts, min, max, total)', () => {
    const fast = createLatencyHistogram();
    const slow = createLatencyHistogram();
    const rnd = createRandom(5);
    for (let i = 0; i < 50_000; i++) {
      const us = rnd() ** 4 * 2 * HIGHEST_TRACKABLE_US - 10;
      recordScaled(fast, us);
      const v = Math.round(us);
      slow.recordValue(v < 0 ? 0 : Math.min(v, HIGHEST_TRACKABLE_US));
    }
    expect(encodeHistogram(fast)).toBe(encodeHistogram(slow));
    expect(fast.maxValue).toBe(slow.maxValue);
    expect(fast.minNonZeroValue).toBe(slow.minNonZeroValue);
    expect(toPct(fast)).toEqual(toPct(slow));
  });
});

describe('hdr-histogram-js by parts (collect/hdr-library.ts)', () => {
  it("builds what the library's build() builds, records, encodes and decodes alike, without WebAssembly", () => {
    const shape = { lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3, autoResize: true } as const;
    const ours = buildInt32Histogram(shape);
    const theirs = hdr.build({ ...shape, bitBucketSize: 32, useWebAssembly: false });
    expect(ours.constructor).toBe(theirs.constructor);
    expect(ours.autoResize).toBe(true);
    for (const v of latencies(5000, 7)) {
      const us = Math.round(v / 1000);
      ours.recordValue(us);
      theirs.recordValue(us);
    }
    ours.recordValue(120_000_000); // past the highest value: autoResize grows both alike
    theirs.recordValue(120_000_000);
    expect(ours.totalCount).toBe(theirs.totalCount);
    for (const p of [50, 90, 99, 99.9, 100]) expect(ours.getValueAtPercentile(p)).toBe(theirs.getValueAtPercentile(p));
    const encoded = encodeHistogram(ours);
    expect(encoded).toBe(hdr.encodeIntoCompressedBase64(theirs));
    // Decoded from the inflated bytes the check already holds, as the library decodes its own text.
    const back = decodeHistogram(encoded);
    const libraryBack = hdr.decodeFromCompressedBase64(encoded, 32, false);
    expect(back.constructor).toBe(theirs.constructor);
    expect(back.totalCount).toBe(libraryBack.totalCount);
    for (const p of [50, 90, 99, 99.9, 100]) expect(back.getValueAtPercentile(p)).toBe(libraryBack.getValueAtPercentile(p));
    expect(encodeHistogram(back)).toBe(hdr.encodeIntoCompressedBase64(libraryBack));
    expect(createLatencyHistogram().constructor).toBe(theirs.constructor);
    expect(createLatencyHistogram().autoResize).toBe(false);
  });
});
