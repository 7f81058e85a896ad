import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmtThresholdValue } from '../../src/report/format.js';
import { parseThresholdKey, splitThresholdKey, unitOf } from '../../src/slo/threshold-grammar.js';
import { evaluateThresholds, parseThreshold, thresholdOfResult } from '../../src/slo/thresholds.js';
import type { ParsedThreshold } from '../../src/slo/thresholds.js';

function ok(key: string, expr: string): ParsedThreshold {
  const r = parseThreshold(key, expr);
  if (!r.ok) throw new Error(`expected ${key}: ${expr} to parse, got: ${r.error}`);
  return r.threshold;
}

const unitOfKey = (key: string): ReturnType<typeof unitOf> => unitOf(parseThresholdKey(key)?.metric ?? { kind: 'dropped' });

function err(key: string, expr: string): string {
  const r = parseThreshold(key, expr);
  if (r.ok) throw new Error(`expected ${key}: ${expr} to be rejected`);
  return r.error;
}

describe('threshold grammar', () => {
  it('parses latency keys of every op and stat, durations in ms', () => {
    expect(ok('run.latency.p99', '< 2s')).toMatchObject({ metric: { kind: 'latency', op: 'run', stat: 'p99' }, op: '<', value: 2000, unit: 'ms' });
    expect(ok('getRun.latency.p50', '<=500ms').value).toBe(500);
    expect(ok('listFlows.latency.max', '< 1.5m').value).toBe(90_000);
    expect(ok('trigger.latency.p999', '< 250us').value).toBe(0.25);
    expect(ok('trigger.latency.p999', '< 250µs').value).toBe(0.25);
    expect(ok('getUsage.latency.mean', '< 1h').value).toBe(3_600_000);
    expect(ok('stream.latency.p95', '< 3s').metric).toEqual({ kind: 'latency', op: 'stream', stat: 'p95' });
    expect(ok('run.latency.p90', '< 120').value).toBe(120);
    // k6's and Go's compound durations, as every duration elsewhere.
    expect(ok('run.latency.p99', '< 1m30s').value).toBe(90_000);
    expect(ok('run.latency.p99', '<= 1h2m').value).toBe(3_720_000);
    expect(ok('run.latency.p99', '< 1s500ms').value).toBe(1500);
    expect(err('run.latency.p99', '< 1m30')).toMatch(/needs its unit/);
    expect(err('run.latency.p99', '< 1m30x')).toMatch(/unknown duration unit "x"/);
  });

  it('parses stream timings; tokensPerS and counts take plain numbers', () => {
    expect(ok('stream.ttft.p99', '< 800ms')).toMatchObject({ metric: { kind: 'stream', metric: 'ttft', stat: 'p99' }, value: 800, unit: 'ms' });
    expect(ok('stream.itl.p50', '< 40ms').value).toBe(40);
    expect(ok('stream.tpot.p90', '< 0.05s').value).toBe(50);
    expect(ok('stream.timeToStart.max', '< 1s').value).toBe(1000);
    expect(ok('stream.tokensPerS.p50', '> 20')).toMatchObject({ unit: 'perS', op: '>', value: 20 });
    expect(ok('stream.ttft.count', '>= 100')).toMatchObject({ unit: 'count', value: 100 });
    expect(ok('run.latency.count', '> 0').unit).toBe('count');
    expect(err('stream.tokensPerS.p50', '> 20s')).toMatch(/plain number/);
  });

  it('parses ratio keys as percentages or plain ratios', () => {
    expect(ok('availability', '>= 99.9%')).toMatchObject({ op: '>=', value: 0.999, unit: 'ratio' });
    expect(ok('availability', '>=0.999').value).toBe(0.999);
    expect(ok('errors.rate', '< 1%').value).toBe(0.01);
    expect(err('availability', '>= 99.9')).toMatch(/did you mean 99.9%/);
    expect(err('availability', '>= 120%')).toMatch(/cannot exceed 100%/);
    expect(err('errors.rate', '< 1s')).toMatch(/"%" or no unit/);
  });

  it('parses count keys with plain numbers', () => {
    expect(ok('ratelimit.premature429', '== 0')).toMatchObject({ metric: { kind: 'ratelimit', metric: 'premature429' }, op: '==', value: 0 });
    expect(ok('ratelimit.expected429', '!= 0').op).toBe('!=');
    expect(ok('ratelimit.responses429', '< 50').value).toBe(50);
    expect(ok('dropped', '== 0').metric).toEqual({ kind: 'dropped' });
    expect(ok('contract.violations', '<= 3').metric).toEqual({ kind: 'contractViolations' });
    expect(ok('  dropped ', '  >  1  ').key).toBe('dropped');
    expect(err('dropped', '== 0%')).toMatch(/plain number/);
  });

  it('names what is allowed for unknown keys, the list apart so many problems say it once', () => {
    for (const key of ['latency.p99', 'run.latency.p42', 'fly.latency.p99', 'stream.ttfx.p99', 'ratelimit.all', 'availability.p99', '', 'errors', 'http:', 'http:a b.latency.p99']) {
      const r = parseThreshold(key, '< 1s');
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error).toMatch(/unknown threshold metric/);
      expect(r.error).not.toContain('contract.violations');
      expect(r.allowed).toContain('<op>.latency.<stat>');
      expect(r.allowed).toContain('http:<name>');
      expect(r.allowed).toContain('contract.violations');
    }
  });

  it('names what is allowed for bad expressions', () => {
    expect(err('run.latency.p99', '2s')).toMatch(/comparator first.*duration such as/);
    expect(err('run.latency.p99', '=< 2s')).toMatch(/comparator/);
    expect(err('run.latency.p99', '< fast')).toMatch(/number after the comparator/);
    expect(err('run.latency.p99', '< -2s')).toMatch(/non-negative number/);
    expect(err('run.latency.p99', '< 2 s and more')).toMatch(/unexpected text/);
    expect(err('run.latency.p99', '< 2parsecs')).toMatch(/unknown duration unit "parsecs"/);
    expect(err('run.latency.p99', '< 2s; process.exit()')).toMatch(/unexpected text/);
    expect(err('run.latency.p99', '')).toMatch(/comparator/);
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (key, expr) => {
        const r = parseThreshold(key, expr);
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.constantFrom('run.latency.p99', 'availability', 'dropped', 'stream.tokensPerS.p50'), fc.string(), (key, expr) => {
        const r = parseThreshold(key, expr);
        if (r.ok) expect(Number.isFinite(r.threshold.value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('survives non-string input from untyped scenario files', () => {
    expect(parseThreshold(42 as unknown as string, '< 1').ok).toBe(false);
    expect(parseThreshold('dropped', null as unknown as string).ok).toBe(false);
  });
});

describe("thresholds on every row of ops: operations and a journey's own requests (http:<name>)", () => {
  it('reads http:<name> rows as operations, names with dots included, never as a scope', () => {
    expect(ok('http:raw.latency.p95', '< 500ms')).toMatchObject({ key: 'http:raw.latency.p95', metric: { kind: 'latency', op: 'http:raw', stat: 'p95' }, unit: 'ms', value: 500 });
    expect(ok('http:raw.latency.p95', '< 1s').scope).toBeUndefined();
    expect(ok('http:auth.login.latency.p99', '< 1s').metric).toEqual({ kind: 'latency', op: 'http:auth.login', stat: 'p99' });
    expect(ok('http:health_check-2.errors.rate', '< 1%')).toMatchObject({ metric: { kind: 'requests', op: 'http:health_check-2', counter: 'errorsRate' }, unit: 'ratio', value: 0.01 });
    expect(ok('http:raw.count', '> 10')).toMatchObject({ metric: { kind: 'requests', op: 'http:raw', counter: 'count' }, unit: 'count' });
    expect(ok('http:raw.errors', '== 0')).toMatchObject({ metric: { kind: 'requests', op: 'http:raw', counter: 'errors' }, unit: 'count' });
    // Scoped to a scenario of several, as any key.
    expect(ok('pro:http:raw.latency.p95', '< 1s')).toMatchObject({ key: 'pro:http:raw.latency.p95', scope: 'pro', metric: { kind: 'latency', op: 'http:raw' } });
    // A scenario named http scopes with its name, as any other.
    expect(ok('http:http:raw.latency.p95', '< 1s')).toMatchObject({ scope: 'http', metric: { op: 'http:raw' } });
    expect(ok('http:availability', '>= 99%')).toMatchObject({ scope: 'http', metric: { kind: 'availability' } });
    expect(splitThresholdKey('http:raw.latency.p95')).toEqual({ scope: undefined, metricKey: 'http:raw.latency.p95' });
  });

  it('gives the operations the same counters', () => {
    expect(ok('run.count', '> 0').metric).toEqual({ kind: 'requests', op: 'run', counter: 'count' });
    expect(ok('stream.errors', '< 5').metric).toEqual({ kind: 'requests', op: 'stream', counter: 'errors' });
    expect(ok('listFlows.errors.rate', '< 0.5%')).toMatchObject({ metric: { kind: 'requests', op: 'listFlows', counter: 'errorsRate' }, value: 0.005 });
    // The run-wide keys are what they were.
    expect(ok('errors.rate', '< 1%').metric).toEqual({ kind: 'errorsRate' });
    expect(ok('stream.latency.p99', '< 1s').metric).toEqual({ kind: 'latency', op: 'stream', stat: 'p99' });
    expect(ok('stream.ttft.count', '> 1').metric).toEqual({ kind: 'stream', metric: 'ttft', stat: 'count' });
  });

  it('a mix refuses a row it never sends, an http: row included', () => {
    const mix = { ops: ['listFlows', 'run'] as const };
    const refused = (key: string): string => {
      const r = parseThreshold(key, '< 1s', { ops: [...mix.ops] });
      if (r.ok) throw new Error(`${key} was accepted`);
      return r.error;
    };
    expect(refused('http:raw.latency.p95')).toMatch(/^http:raw is a journey's own request \(vu\.http\); a mix sends none.*the mix sends listFlows, run$/);
    expect(refused('getRun.count')).toMatch(/^getRun is not in the mix/);
    expect(parseThreshold('run.errors.rate', '< 1%', { ops: [...mix.ops] }).ok).toBe(true);
  });

  it('offers raw.latency.p95 written for a vu.http row its prefix, and fixes the suffix of an http: key', () => {
    expect(err('raw.latency.p95', '< 1s')).toContain('did you mean "http:raw.latency.p95"?');
    expect(err('http:raw.latncy.p95', '< 1s')).toContain('did you mean "http:raw.latency.p95"?');
    expect(err('http:auth.login.eror.rate', '< 1%')).toContain('did you mean "http:auth.login.errors.rate"?');
    expect(err('http.raw.latency.p95', '< 1s')).toContain('did you mean "http:raw.latency.p95"?');
    expect(err('listflows.latency.p99', '< 1s')).toContain('did you mean "listFlows.latency.p99"?');
    // The grammar's own words are no request's name.
    expect(err('availability.count', '< 1')).not.toContain('http:');
  });

  it('every did-you-mean, pasted back, validates: in a mix, in a journey, scoped or not', () => {
    const keys = ['availability', 'errors.rate', 'dropped', 'checks', 'iteration.duration.p95', 'ratelimit.premature429', 'run.latency.p99', 'listFlows.errors.rate', 'stream.ttft.p95', 'getUsage.count', 'http:raw.latency.p95', 'http:auth.login.errors'];
    const typos = (k: string): string[] => {
      const out: string[] = [];
      for (let i = 0; i < k.length; i++) {
        out.push(k.slice(0, i) + k.slice(i + 1));
        out.push(`${k.slice(0, i)}x${k.slice(i + 1)}`);
        out.push(`${k.slice(0, i)}${k[i + 1] ?? ''}${k[i] ?? ''}${k.slice(i + 2)}`);
        out.push(`${k.slice(0, i)}e${k.slice(i)}`);
      }
      return out;
    };
    const contexts = [{}, { ops: ['listFlows' as const, 'run' as const] }, { ops: ['stream' as const] }];
    const exprFor = (key: string): string => ({ ms: '< 1s', ratio: '>= 50%', count: '>= 0', perS: '> 1' })[parseThresholdKey(key)?.metric ? unitOfKey(key) : 'count'];
    let offered = 0;
    for (const context of contexts) {
      for (const scope of ['', 'pro:']) {
        for (const typo of keys.flatMap(typos)) {
          const r = parseThreshold(`${scope}${typo}`, '< 1', context);
          if (r.ok) continue;
          const m = /did you mean "([^"]+)"\?/.exec(r.error);
          if (m === null) continue;
          offered++;
          const pasted = parseThreshold(`${scope}${m[1] as string}`, exprFor(m[1] as string), context);
          expect(pasted.ok, `${scope}${typo} → ${m[1]} in ${JSON.stringify(context)}: ${pasted.ok ? '' : pasted.error}`).toBe(true);
        }
      }
    }
    expect(offered).toBeGreaterThan(500);
  });
});

describe('evaluateThresholds', () => {
  const metrics: Record<string, number> = { 'run.latency.p99': 1500, availability: 0.999, dropped: 0, 'ratelimit.premature429': 2 };
  const lookup = (k: string): number | undefined => metrics[k];

  it('compares observed against value with each comparator', () => {
    const results = evaluateThresholds(
      [
        ok('run.latency.p99', '< 2s'),
        ok('run.latency.p99', '< 1s'),
        ok('run.latency.p99', '<= 1.5s'),
        ok('run.latency.p99', '> 1.5s'),
        ok('run.latency.p99', '>= 1500ms'),
        ok('availability', '>= 99.9%'),
        ok('availability', '== 0.999'),
        ok('dropped', '!= 0'),
        ok('ratelimit.premature429', '== 0'),
      ],
      lookup,
    );
    expect(results.map((r) => r.passed)).toEqual([true, false, true, false, true, true, true, false, false]);
    expect(results[0]).toEqual({ metric: 'run.latency.p99', op: '<', value: 2000, observed: 1500, passed: true });
    expect(results[5]).toEqual({ metric: 'availability', op: '>=', value: 0.999, observed: 0.999, passed: true });
  });

  it('treats float noise as equal: 99.9 % of 1000 meets >= 99.9%', () => {
    const r = evaluateThresholds([ok('availability', '>= 99.9%')], () => 999 / 1000);
    expect(r[0]?.passed).toBe(true);
  });

  it('fails a threshold with no observation, with observed null', () => {
    const r = evaluateThresholds([ok('stream.ttft.p99', '< 1s'), ok('run.latency.p50', '< 1s')], (k) => (k === 'run.latency.p50' ? Number.NaN : undefined));
    expect(r).toEqual([
      { metric: 'stream.ttft.p99', op: '<', value: 1000, observed: null, passed: false },
      { metric: 'run.latency.p50', op: '<', value: 1000, observed: null, passed: false },
    ]);
  });
});

describe('a threshold scoped to one scenario (<scenario>:<metric>), parsed once', () => {
  it('carries its scope beside the metric, the key normalised', () => {
    expect(ok('pro:availability', '>= 99.9%')).toMatchObject({ key: 'pro:availability', scope: 'pro', metric: { kind: 'availability' }, unit: 'ratio', value: 0.999 });
    expect(ok(' pro : run.latency.p99 ', '< 2s')).toMatchObject({ key: 'pro:run.latency.p99', scope: 'pro', metric: { kind: 'latency', op: 'run', stat: 'p99' }, unit: 'ms', value: 2000 });
    expect(ok('availability', '>= 99%').scope).toBeUndefined();
    // A check's name may hold a colon: text with a dot before it is no scenario's name.
    expect(ok('checks.status: 200', '>= 99%')).toMatchObject({ key: 'checks.status: 200', metric: { kind: 'checks', name: 'status: 200' } });
    expect(ok('free:checks.status: 200', '>= 99%')).toMatchObject({ scope: 'free', metric: { kind: 'checks', name: 'status: 200' } });
    expect(splitThresholdKey(':availability')).toEqual({ scope: undefined, metricKey: ':availability' });
    expect(parseThresholdKey('pro:nonsense')).toBeUndefined();
  });

  it('names the metric part in its errors', () => {
    expect(err('pro:nonsense', '< 1')).toMatch(/unknown threshold metric "nonsense"/);
    expect(err('pro:availability', '>= 99.9')).toMatch(/did you mean 99.9%/);
  });

  it('is read back from a report\'s result with its scope (what merge judges again), and shown in its unit', () => {
    const t = ok('pro:run.latency.p99', '< 1.5s');
    expect(thresholdOfResult({ metric: t.key, op: t.op, value: t.value, observed: 12, passed: true })).toMatchObject({ key: 'pro:run.latency.p99', scope: 'pro', metric: t.metric, unit: 'ms', op: '<', value: 1500 });
    expect(thresholdOfResult({ metric: 'pro:availability', op: '>=', value: 0.99, observed: null, passed: false, implicit: true })).toMatchObject({ scope: 'pro', implicit: true });
    expect(thresholdOfResult({ metric: 'pro:bogus', op: '>=', value: 1, observed: null, passed: false })).toBeUndefined();
    expect(fmtThresholdValue('pro:availability', 0.999)).toBe('99.9%');
    expect(fmtThresholdValue('pro:run.latency.p99', 1500)).toBe(fmtThresholdValue('run.latency.p99', 1500));
    expect(fmtThresholdValue('pro:stream.tokensPerS.p50', 20)).toBe('20/s');
  });

  it('is evaluated by what it carries: the lookup gets the parsed threshold', () => {
    const seen: (string | undefined)[] = [];
    const r = evaluateThresholds([ok('pro:availability', '>= 99%'), ok('availability', '>= 99%')], (_k, t) => {
      seen.push(t.scope);
      return t.scope === 'pro' ? 1 : 0.5;
    });
    expect(seen).toEqual(['pro', undefined]);
    expect(r.map((x) => [x.metric, x.passed])).toEqual([
      ['pro:availability', true],
      ['availability', false],
    ]);
  });
});
