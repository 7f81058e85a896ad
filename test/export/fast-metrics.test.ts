import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { FastCounter, FastGauge, FastHistogram } from '../../src/export/fast-metrics.js';
import { parseExposition, valueOf } from './helpers/exposition.js';

const spec = (name: string, type: 'counter' | 'gauge' | 'histogram') => ({ name, type, help: `help of ${name}`, labelNames: ['a'] });

describe('fast metrics', () => {
  it('serialises counters, gauges and cumulative histogram buckets through a prom-client registry', async () => {
    const r = new Registry();
    const c = new FastCounter(spec('t_events_total', 'counter'), r);
    const g = new FastGauge(spec('t_level', 'gauge'), r);
    const h = new FastHistogram(spec('t_wait_seconds', 'histogram'), r, [0.1, 0.5, 1]);
    c.cell('x').inc();
    c.cell('x').inc(2);
    g.cell('y').set(4.5);
    const cell = h.cell('z');
    for (const v of [0.05, 0.1, 0.3, 0.5, 0.7, 2]) cell.observe(v);
    const text = await r.metrics();
    expect(text).toContain('# TYPE t_wait_seconds histogram');
    expect(text).toContain('# HELP t_events_total help of t_events_total');
    const s = parseExposition(text);
    expect(valueOf(s, 't_events_total', { a: 'x' })).toBe(3);
    expect(valueOf(s, 't_level', { a: 'y' })).toBe(4.5);
    // Upper bounds are inclusive, buckets cumulative.
    expect([0.1, 0.5, 1].map((le) => valueOf(s, 't_wait_seconds_bucket', { a: 'z', le: String(le) }))).toEqual([2, 4, 5]);
    expect(valueOf(s, 't_wait_seconds_bucket', { a: 'z', le: '+Inf' })).toBe(6);
    expect(valueOf(s, 't_wait_seconds_count', { a: 'z' })).toBe(6);
    expect(valueOf(s, 't_wait_seconds_sum', { a: 'z' })).toBeCloseTo(3.65, 9);
  });

  it('returns the same cell for the same label values and checks their number', () => {
    const c = new FastCounter(spec('t_total', 'counter'), new Registry());
    expect(c.cell('x')).toBe(c.cell('x'));
    expect(c.cell('x')).not.toBe(c.cell('y'));
    expect(c.size()).toBe(2);
    expect(() => c.cell('x', 'extra')).toThrow(InvalidArgumentError);
  });

  it('escapes label values, works with getMetricsAsJSON and resetMetrics, and refuses a duplicate name', async () => {
    const r = new Registry();
    const c = new FastCounter(spec('t_total', 'counter'), r);
    c.cell('quote " and \\ back\nslash').inc();
    expect(await r.metrics()).toContain('a="quote \\" and \\\\ back\\nslash"');
    const json = await r.getMetricsAsJSON();
    expect(json.map((m) => m.name)).toEqual(['t_total']);
    r.resetMetrics();
    expect(c.size()).toBe(0);
    expect(() => new FastCounter(spec('t_total', 'counter'), r)).toThrow(/already been registered/);
  });
});
