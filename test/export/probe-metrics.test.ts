import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { addToProbeTotals, createProbeMetrics, emptyProbeTotals } from '../../src/export/probe-metrics.js';
import { PROBE_METRICS } from '../../src/slo/metric-names.js';
import { parseExposition, valueOf } from './helpers/exposition.js';

const P = PROBE_METRICS;

describe('createProbeMetrics', () => {
  it('keeps the last result, counts both results and observes every phase', async () => {
    const m = createProbeMetrics({ target: 'api.example.com' });
    m.record('run', { success: true, durationS: 0.4, phases: { connect: 0.002, tls: 0.01, ttfb: 0.1, total: 0.3 } });
    m.record('run', { success: false, durationS: 1.2, phases: { total: 1.1 } });
    m.record('stream', { success: true, durationS: 0.5, phases: { total: 0.45 }, ttftS: 0.2 });
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, P.success.name, { check: 'run' })).toBe(0);
    expect(valueOf(s, P.success.name, { check: 'stream' })).toBe(1);
    expect(valueOf(s, P.total.name, { check: 'run', result: 'success' })).toBe(1);
    expect(valueOf(s, P.total.name, { check: 'run', result: 'failure' })).toBe(1);
    expect(valueOf(s, P.total.name, { check: 'stream', result: 'failure' })).toBe(0);
    const d = `${P.duration.name}_count`;
    expect(valueOf(s, d, { check: 'run', phase: 'connect' })).toBe(1);
    expect(valueOf(s, d, { check: 'run', phase: 'total' })).toBe(2);
    expect(valueOf(s, d, { check: 'run', phase: 'check' })).toBe(2);
    expect(valueOf(s, d, { check: 'stream', phase: 'ttft' })).toBe(1);
    expect(s.some((x) => x.labels.check === 'stream' && x.labels.phase === 'connect')).toBe(false);
  });

  it('keeps only the current TLS version of a check, with value 1', async () => {
    const m = createProbeMetrics({ registry: new Registry(), target: 'api.example.com' });
    m.record('run', { success: true, durationS: 0.1, phases: { total: 0.1 }, tlsVersion: 'TLSv1.2' });
    m.record('run', { success: true, durationS: 0.1, phases: { total: 0.1 }, tlsVersion: 'TLSv1.3' });
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, P.tlsVersion.name, { check: 'run', version: 'TLSv1.3' })).toBe(1);
    expect(s.filter((x) => x.name === P.tlsVersion.name)).toHaveLength(1);
  });

  it('shares a registry with run metrics without name clashes', async () => {
    const registry = new Registry();
    createProbeMetrics({ registry, target: 'api.example.com' });
    const { createRunMetrics } = await import('../../src/export/run-metrics.js');
    expect(() => createRunMetrics({ registry, scenario: 's', tier: 'pro' })).not.toThrow();
    const names = (await registry.getMetricsAsJSON()).map((x) => x.name);
    expect(names).toContain(P.success.name);
    expect(names).toContain('flowgauge_requests_total');
  });

  it('continues counters and the histogram from seeded totals, and keeps the last run and certificate expiry', async () => {
    const before = emptyProbeTotals();
    for (let i = 0; i < 4; i++) addToProbeTotals(before, 'run', { success: i !== 2, durationS: 0.2, phases: { total: 0.15 } });
    const m = createProbeMetrics({ target: 'api.example.com' });
    m.seed(before);
    m.record('run', { success: true, durationS: 0.3, phases: { total: 0.3 }, finishedAtS: 1_800_000_000.5, certExpiryS: 1_801_000_000 });
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, P.total.name, { check: 'run', result: 'success' })).toBe(4);
    expect(valueOf(s, P.total.name, { check: 'run', result: 'failure' })).toBe(1);
    expect(valueOf(s, `${P.duration.name}_count`, { check: 'run', phase: 'total' })).toBe(5);
    expect(valueOf(s, `${P.duration.name}_sum`, { check: 'run', phase: 'total' })).toBeCloseTo(0.9, 9);
    // Cumulative buckets: 4 at or below 0.25 s, all 5 at or below 0.5 s and +Inf.
    expect(valueOf(s, `${P.duration.name}_bucket`, { check: 'run', phase: 'total', le: '0.25' })).toBe(4);
    expect(valueOf(s, `${P.duration.name}_bucket`, { check: 'run', phase: 'total', le: '0.5' })).toBe(5);
    expect(valueOf(s, `${P.duration.name}_bucket`, { check: 'run', phase: 'total', le: '+Inf' })).toBe(5);
    expect(valueOf(s, P.lastRun.name, { check: 'run' })).toBe(1_800_000_000.5);
    expect(valueOf(s, P.tlsCertExpiry.name, { check: 'run' })).toBe(1_801_000_000);
    // Seeding after counting would count the same probes twice.
    expect(() => m.seed(before)).toThrow(/seed once, before the first record/);
  });

  it('labels every series, the histogram included, with the target, so two probers never blend', async () => {
    const registry = new Registry();
    const a = createProbeMetrics({ registry, target: 'staging.example.com' });
    a.record('run', { success: false, durationS: 0.2, phases: { total: 0.2 }, tlsVersion: 'TLSv1.3', finishedAtS: 100, certExpiryS: 200 });
    const s = parseExposition(await registry.metrics());
    const probeSeries = s.filter((x) => x.name.startsWith('flowgauge_probe_'));
    expect(probeSeries.length).toBeGreaterThan(10);
    expect(probeSeries.filter((x) => x.labels.target !== 'staging.example.com')).toEqual([]);
    expect(() => createProbeMetrics({ target: '' })).toThrow(/target/);
  });

  it('exports when the check last succeeded: from the history, kept while the check fails, moved by a success', async () => {
    const before = emptyProbeTotals();
    addToProbeTotals(before, 'run', { success: true, durationS: 0.1, phases: { total: 0.1 }, finishedAtS: 1000 });
    addToProbeTotals(before, 'run', { success: false, durationS: 0.1, phases: { total: 0.1 }, finishedAtS: 1060 });
    const m = createProbeMetrics({ target: 'api.example.com' });
    m.seed(before);
    let s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, P.lastSuccess.name, { target: 'api.example.com', check: 'run' })).toBe(1000);
    expect(valueOf(s, P.lastRun.name, { target: 'api.example.com', check: 'run' })).toBe(1060);
    m.record('run', { success: false, durationS: 0.1, phases: { total: 0.1 }, finishedAtS: 1120 });
    s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, P.lastSuccess.name, { check: 'run' })).toBe(1000);
    expect(valueOf(s, P.lastRun.name, { check: 'run' })).toBe(1120);
    m.record('run', { success: true, durationS: 0.1, phases: { total: 0.1 }, finishedAtS: 1180 });
    s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, P.lastSuccess.name, { check: 'run' })).toBe(1180);
  });
});
