import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { emptyPct } from '../../src/collect/histogram.js';
import { evaluateReportThresholds, reportMetric } from '../../src/report/metrics.js';
import { REPORT_SCHEMA } from '../../src/report/model.js';
import { buildReport, redactUrl } from '../../src/report/build-report.js';
import { REPORT_JSON_SCHEMA } from '../../src/report/report-json-schema.js';
import { parseThreshold } from '../../src/slo/thresholds.js';
import type { ParsedThreshold } from '../../src/slo/thresholds.js';
import { fixtureInput, fixtureReport, WALL0 } from './fixture.js';

const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile(REPORT_JSON_SCHEMA);

function parsed(pairs: Record<string, string>): ParsedThreshold[] {
  return Object.entries(pairs).map(([k, e]) => {
    const r = parseThreshold(k, e);
    if (!r.ok) throw new Error(r.error);
    return r.threshold;
  });
}

describe('buildReport', () => {
  it('builds a report that validates against the report@1 JSON Schema (after a JSON round trip)', () => {
    const report = evaluateReportThresholds(fixtureReport(), parsed({ availability: '>= 99.9%', 'run.latency.p99': '< 2s' }));
    const json = JSON.parse(JSON.stringify(report));
    const ok = validate(json);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('carries every contract field with its meaning', () => {
    const r = fixtureReport();
    expect(r.schema).toBe(REPORT_SCHEMA);
    expect(r.schema).toBe('flowgauge/report@1');
    expect(r).toMatchObject({ scenario: 'mixed-pro', interrupted: false, target: { baseUrl: 'http://127.0.0.1:4000/v1', embedded: true } });
    expect(r.startedAt).toBe('2026-01-01T12:00:00.000Z');
    expect(r.endedAt).toBe('2026-01-01T12:01:00.000Z');
    expect(r.durationS).toBe(60);
    expect(r.load).toMatchObject({ executor: 'constant-arrival-rate', targetRatePerS: 20, started: 1200, dropped: 0, achievedRatePerS: 20 });
    expect(Object.keys(r.ops).sort()).toEqual(['run', 'stream']);
    // 1200 requests, 1000 admitted in the window: 200 429s among the runs. The first was sent
    // while the 1000th admitted run (69 ms long) was still in flight: uncertain; the rest expected.
    expect(r.rateLimit).toMatchObject({ advertisedLimit: 1000, resetSemantics: 'delta-seconds', responses429: 200, expected429: 199, uncertain429: 1, premature429: 0 });
    // Of the 1000 admitted, every 4th is a stream: 750 runs (one a 503), plus the 200 rejected runs.
    expect(r.ops.run!.statuses).toEqual({ '200': 749, '503': 1, '429': 200 });
    expect(r.ops.run!.errors).toEqual({ SERVICE_UNAVAILABLE: 1, RATE_LIMITED: 200 });
    expect(r.stream).toMatchObject({ count: 250, completed: 250, incomplete: 0, tokens: 1000, tokenCountMismatches: 0 });
    expect('histograms' in r.stream).toBe(false);
    // good: 1000 admitted − 1 503 − 1 violation; excluded: 200 expected 429s
    expect(r.slo).toMatchObject({ objective: 0.999, good: 998, bad: 2, excluded: 200, availability: 0.998, errorBudgetConsumed: 2, burnRate: 2 });
    expect(r.contractViolations).toEqual([{ op: 'run', path: 'usage.total_tokens', expected: 'integer', got: 'string', count: 1 }]);
    expect(r.slices).toHaveLength(60);
    expect(r.slices[0]).toMatchObject({ t: 0, requests: 20 });
    expect(Object.keys(r.histograms)).toEqual(expect.arrayContaining(['run.latency', 'stream.latency', 'stream.ttft', 'stream.itl', 'stream.tpot']));
    expect(r.passed).toBe(true);
  });

  it('validates a report of an empty, interrupted run with null target rate', () => {
    const c = createCollectors({ runStartNs: 0 });
    const r = buildReport({
      scenario: 'empty',
      interrupted: true,
      target: { baseUrl: 'https://user:secret@api.example.com/v1?token=abc', embedded: false },
      startedAtMs: WALL0,
      endedAtMs: WALL0,
      load: { executor: 'constant-concurrency', targetRatePerS: null, started: 0, dropped: 0, scheduleLagMs: emptyPct() },
      snapshot: c.snapshot(0),
      thresholds: [],
    });
    expect(validate(JSON.parse(JSON.stringify(r)))).toBe(true);
    expect(r.slo.availability).toBeNull();
    expect(r.load.achievedRatePerS).toBe(0);
    expect(r.target.baseUrl).toBe('https://api.example.com/v1');
    expect(JSON.stringify(r)).not.toMatch(/secret|token=abc/);
  });

  it('the schema requires only the DESIGN names: a report without this writer\'s additions is valid', () => {
    const r = JSON.parse(JSON.stringify(fixtureReport()));
    for (const k of ['passed', 'contractViolationTotals', 'sliceMs']) delete r[k];
    for (const k of ['first429', 'recoveryMs', 'responses', 'windowsDropped']) delete r.rateLimit[k];
    for (const k of ['errorRatio', 'allowedBadEvents']) delete r.slo[k];
    for (const k of ['ttfbMs', 'timeToEndMs', 'unknownEvents', 'malformedEvents']) delete r.stream[k];
    for (const w of r.rateLimit.windows) delete w.limit;
    expect(validate(r)).toBe(true);
    r.rateLimit.first429 = { index: 'one' };
    expect(validate(r)).toBe(false);
  });

  it('the schema rejects a report missing or misspelling a contract field', () => {
    const good = JSON.parse(JSON.stringify(fixtureReport()));
    for (const mutate of [
      (r: any) => delete r.slo.availability,
      (r: any) => delete r.rateLimit.premature429,
      (r: any) => (r.schema = 'flowgauge/report@2'),
      (r: any) => (r.ops.run.latencyMs = { p50: 1 }),
      (r: any) => (r.ops.nope = r.ops.run),
      (r: any) => (r.thresholds = [{ metric: 'availability', op: '=>', value: 1, observed: null, passed: false }]),
      (r: any) => (r.histograms['run.latency'] = 'not a histogram'),
    ]) {
      const copy = structuredClone(good);
      mutate(copy);
      expect(validate(copy)).toBe(false);
    }
  });
});

describe('reportMetric', () => {
  const r = fixtureReport();

  it('looks up every key kind in the report', () => {
    expect(reportMetric(r, 'run.latency.p99')).toBe(r.ops.run!.latencyMs.p99);
    // 950 runs, 200 of them refused with 429: latency counts the 750 served, the 429s apart.
    expect(r.ops.run?.count).toBe(950);
    expect(reportMetric(r, 'run.latency.count')).toBe(750);
    expect(reportMetric(r, 'ratelimit.latency.count')).toBe(200);
    expect(reportMetric(r, 'ratelimit.latency.p50')).toBeCloseTo(2, 1);
    expect(reportMetric(r, 'stream.latency.p50')).toBe(r.ops.stream!.latencyMs.p50);
    expect(reportMetric(r, 'stream.ttft.p50')).toBeCloseTo(100, 0);
    expect(reportMetric(r, 'stream.itl.max')).toBeCloseTo(50, 0);
    // (end − first token) / (tokens − 1) = (300 − 100) / 3.
    expect(reportMetric(r, 'stream.tpot.p99')).toBeCloseTo(200 / 3, 0);
    expect(reportMetric(r, 'stream.timeToStart.p50')).toBeCloseTo(10, 1);
    expect(reportMetric(r, 'stream.tokensPerS.p50')).toBeCloseTo(20, 1);
    expect(reportMetric(r, 'availability')).toBe(0.998);
    expect(reportMetric(r, 'errors.rate')).toBeCloseTo(2 / 1200, 12);
    expect(reportMetric(r, 'ratelimit.premature429')).toBe(0);
    expect(reportMetric(r, 'ratelimit.expected429')).toBe(199);
    expect(reportMetric(r, 'ratelimit.responses429')).toBe(200);
    expect(reportMetric(r, 'dropped')).toBe(0);
    expect(reportMetric(r, 'contract.violations')).toBe(1);
  });

  it('has no observation for unknown keys or ops never called, but a count of 0', () => {
    expect(reportMetric(r, 'nonsense')).toBeUndefined();
    expect(reportMetric(r, 'trigger.latency.p99')).toBeUndefined();
    expect(reportMetric(r, 'trigger.latency.count')).toBe(0);
  });

  it('evaluates thresholds against the report and sets passed', () => {
    const judged = evaluateReportThresholds(
      r,
      parsed({ availability: '>= 99.9%', 'ratelimit.premature429': '== 0', 'run.latency.p99': '< 2s', 'trigger.latency.p99': '< 1s' }),
    );
    expect(judged.thresholds).toEqual([
      { metric: 'availability', op: '>=', value: 0.999, observed: 0.998, passed: false },
      { metric: 'ratelimit.premature429', op: '==', value: 0, observed: 0, passed: true },
      { metric: 'run.latency.p99', op: '<', value: 2000, observed: r.ops.run!.latencyMs.p99, passed: true },
      { metric: 'trigger.latency.p99', op: '<', value: 1000, observed: null, passed: false },
    ]);
    expect(judged.passed).toBe(false);
    expect(evaluateReportThresholds(r, parsed({ 'ratelimit.premature429': '== 0' })).passed).toBe(true);
  });
});

describe('redactUrl', () => {
  it('drops credentials, query and fragment but keeps the rest', () => {
    expect(redactUrl('http://127.0.0.1:4000/v1')).toBe('http://127.0.0.1:4000/v1');
    expect(redactUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000');
    expect(redactUrl('https://a:b@x.example/v1/?api_key=s3cr3t#frag')).toBe('https://x.example/v1/');
    expect(redactUrl('not a url?token=zzz')).toBe('not a url');
    expect(redactUrl('//u:p@host/v1')).toBe('//host/v1');
  });
});

describe('buildReport input', () => {
  it('uses the input objective over the snapshot one', () => {
    const r = buildReport({ ...fixtureInput(), objective: 0.99 });
    expect(r.slo.objective).toBe(0.99);
    expect(r.slo.errorBudgetConsumed).toBeCloseTo(0.2, 9);
  });
});
