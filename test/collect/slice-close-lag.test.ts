/**
 * The slice table's close lag follows the longest latency seen: streams longer than the
 * configured lag (LLM answers of 10 s and more) land in a slice that is still live, instead of
 * each paying a compressed decode and encode of a closed one. The figures are the same either
 * way; what changes is which slices are live.
 */
import { describe, expect, it } from 'vitest';
import { createSliceTable, LONG_SAMPLES, MAX_CLOSE_LAG_MS } from '../../src/collect/slices.js';
import { decodeHistogram, toPct } from '../../src/collect/histogram.js';
import { MS, S, sample } from './samples.js';

const table = (closeLagMs: number) => createSliceTable({ runStartNs: 0, sliceMs: 1000, closeLagMs });

/** 10 s streams, one started every 100 ms for 30 s, observed in the order they end. */
function longStreams(): ReturnType<typeof sample>[] {
  return Array.from({ length: 300 }, (_, i) => sample({ op: 'stream', intendedNs: i * 100 * MS, startNs: i * 100 * MS, endNs: i * 100 * MS + 10 * S + (i % 7) * MS }));
}

describe('slice close lag', () => {
  it('keeps the slices of 10 s streams live past a 2 s lag, and gives the same figures as an unbounded lag', () => {
    const adaptive = table(2000);
    const reference = table(1e9);
    const streams = longStreams();
    let mergesBeforeTail = 0;
    streams.forEach((x, i) => {
      if (i === 200) mergesBeforeTail = adaptive.lateMerges();
      adaptive.observe(x, 'good');
      reference.observe(x, 'good');
    });
    // The first streams found their slices closed behind the 2 s lag until LONG_SAMPLES of them
    // had ended; from then on every stream ended while its slice was live: no decode and encode.
    expect(mergesBeforeTail).toBeGreaterThanOrEqual(LONG_SAMPLES - 1);
    expect(adaptive.lateMerges()).toBe(mergesBeforeTail);
    const a = adaptive.entries();
    const r = reference.entries();
    expect(a.map((e) => e.requests)).toEqual(r.map((e) => e.requests));
    a.forEach((e, i) => expect(toPct(decodeHistogram(e.ops.stream?.latency as string))).toEqual(toPct(decodeHistogram(r[i]?.ops.stream?.latency as string))));
  });

  it('with the configured lag only while requests are short', () => {
    const t = table(2000);
    for (let i = 0; i < 100; i++) t.observe(sample({ intendedNs: i * 100 * MS, startNs: i * 100 * MS, endNs: i * 100 * MS + 10 * MS }), 'good');
    // 10 s of 10 ms requests: slices older than 2 s (plus the slice) are closed.
    expect(t.openCount()).toBeLessThanOrEqual(4);
  });

  it('is not moved by one slow request: a lone timeout keeps the memory the run had', () => {
    const t = table(1000);
    t.observe(sample({ intendedNs: 0, startNs: 0, endNs: 60 * S }), 'good');
    for (let i = 1; i <= 100; i++) t.observe(sample({ intendedNs: 60 * S + i * S, startNs: 60 * S + i * S, endNs: 60 * S + i * S + 10 * MS }), 'good');
    expect(t.openCount()).toBeLessThanOrEqual(3);
  });

  it('grows no further than MAX_CLOSE_LAG_MS, however slow the requests', () => {
    const t = table(1000);
    for (let i = 0; i < LONG_SAMPLES; i++) t.observe(sample({ intendedNs: i * MS, startNs: i * MS, endNs: 50 * 60 * S + i * MS }), 'good');
    for (let i = 1; i <= 200; i++) t.observe(sample({ intendedNs: 50 * 60 * S + i * S, startNs: 50 * 60 * S + i * S, endNs: 50 * 60 * S + i * S + 10 * MS }), 'good');
    // The live slices span at most the cap (and the slice being filled).
    expect(t.openCount()).toBeLessThanOrEqual(MAX_CLOSE_LAG_MS / 1000 + 2);
    expect(t.openCount()).toBeGreaterThan(30);
  });
});
