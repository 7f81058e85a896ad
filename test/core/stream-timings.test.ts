/**
 * The stream timings' one table covers every timing the report's `stream` section and the
 * collector carry: a timing added to either without a row fails here, rather than going missing
 * from the threshold grammar or the reports' tables.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStreamCollector } from '../../src/collect/stream-collector.js';
import { STREAM_TIMINGS, STREAM_TIMING_NAMES, plainStreamLabel, streamTimingKey } from '../../src/core/stream-timings.js';
import { pct } from '../../src/report/sections/schema-kit.js';
import { streamSchema } from '../../src/report/sections/stream-schema.js';
import { parseMetricKey, unitOf } from '../../src/slo/threshold-grammar.js';
import { MS, sample, streamTiming } from '../collect/samples.js';

/** `stream` summaries that are not timings: prompt lengths, in words. */
const NOT_TIMINGS = ['inputWords'];

const isPct = (s: z.ZodType): boolean => s === pct || (s instanceof z.ZodOptional && s.unwrap() === pct);

describe('stream timings table', () => {
  it('has a row for every percentile summary of report.json `stream`', () => {
    const fields = Object.entries(streamSchema.shape)
      .filter(([k, s]) => isPct(s as z.ZodType) && !NOT_TIMINGS.includes(k))
      .map(([k]) => k);
    expect(fields.length).toBeGreaterThan(0);
    expect([...fields].sort()).toEqual(STREAM_TIMINGS.map((t) => t.field).sort());
  });

  it('has a row for every summary and histogram of the stream collector, in the table order', () => {
    const c = createStreamCollector();
    c.observe(sample({ op: 'stream', intendedNs: 0, startNs: 0, endNs: 300 * MS, stream: streamTiming(0, { start: 10 * MS, tokens: [100 * MS, 200 * MS], end: 300 * MS }) }));
    const snap = c.snapshot();
    const summaries = Object.entries(snap)
      .filter(([, v]) => typeof v === 'object' && v !== null && 'p50' in v)
      .map(([k]) => k);
    expect(summaries).toEqual(STREAM_TIMINGS.map((t) => t.field));
    expect(Object.keys(snap.histograms)).toEqual(STREAM_TIMING_NAMES.map(streamTimingKey));
  });

  it('names each timing as a threshold key of its unit', () => {
    for (const t of STREAM_TIMINGS) {
      const key = parseMetricKey(`${streamTimingKey(t.name)}.p99`);
      expect(key).toEqual({ kind: 'stream', metric: t.name, stat: 'p99' });
      expect(unitOf(key!)).toBe(t.unit);
    }
  });

  it('keeps names, fields and labels unique, and plain labels free of Markdown', () => {
    for (const k of ['name', 'field', 'label'] as const) expect(new Set(STREAM_TIMINGS.map((t) => t[k])).size).toBe(STREAM_TIMINGS.length);
    expect(STREAM_TIMINGS.map(plainStreamLabel).filter((l) => l.includes('`'))).toEqual([]);
  });
});
