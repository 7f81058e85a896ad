import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import {
  DEFAULT_GRACEFUL_STOP_MS,
  DEFAULT_MAX_IN_FLIGHT,
  resolveScenario,
  type ScenarioOverrides,
} from '../../src/scenario/index.js';

const base = {
  name: 'demo',
  tier: 'pro',
  load: { rate: '600/min', duration: '30s' },
  mix: [{ op: 'run', input: 'hi' }],
};

function issuesOf(raw: unknown, overrides?: ScenarioOverrides): { path: string; message: string }[] {
  try {
    resolveScenario(raw, overrides);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).issues];
  }
  throw new Error('expected a ConfigError');
}

function issueAt(raw: unknown, path: string, overrides?: ScenarioOverrides): string {
  const found = issuesOf(raw, overrides).find((i) => i.path === path);
  expect(found, `no issue at ${path}`).toBeDefined();
  return (found as { message: string }).message;
}

describe('resolveScenario', () => {
  it('fills every default and converts units', () => {
    const s = resolveScenario(base);
    expect(s).toEqual({
      name: 'demo',
      description: '',
      tier: 'pro',
      tierLimitPerMinute: 1000,
      load: {
        executor: 'constant-arrival-rate',
        ratePerS: 10,
        durationMs: 30_000,
        maxInFlight: DEFAULT_MAX_IN_FLIGHT,
        gracefulStopMs: DEFAULT_GRACEFUL_STOP_MS,
      },
      mix: [{ op: 'run', weight: 1, flowId: undefined, input: 'hi', sessionId: undefined, query: undefined, negative: false }],
      // No thresholds written: the defaults judge the run.
      thresholds: [
        { key: 'availability', expr: '>=99.9%', abortOnFail: false, implicit: true },
        { key: 'ratelimit.premature429', expr: '==0', abortOnFail: false, implicit: true },
      ],
      seed: 1,
      deadlinesMs: {},
      validate: 'full',
      objective: 0.999,
    });
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.load)).toBe(true);
    expect(Object.isFrozen(s.mix[0])).toBe(true);
  });

  it('resolves rates relative to the tier limit', () => {
    const at = (rate: unknown, tier: unknown = 'free'): number => {
      const s = resolveScenario({ ...base, tier, load: { rate, duration: '1m' } });
      return s.load.executor === 'constant-arrival-rate' ? s.load.ratePerS : Number.NaN;
    };
    expect(at('100%')).toBeCloseTo(100 / 60, 12);
    expect(at('120%')).toBeCloseTo(2, 12);
    expect(at('50%', 'pro')).toBeCloseTo(1000 / 120, 12);
    expect(at('100%', { limitPerMinute: 6000 })).toBe(100);
    expect(at('16.7/s')).toBe(16.7);
    expect(at(3)).toBe(3);
    expect(at('5000/h')).toBeCloseTo(5000 / 3600, 12);
  });

  it('resolves each executor with its own fields', () => {
    const ramp = resolveScenario({
      ...base,
      tier: 'free',
      load: { executor: 'ramping-arrival-rate', startRate: '1/s', stages: [{ duration: '10s', target: '100%' }, { duration: '5s', target: 0 }], maxInFlight: 7 },
    });
    expect(ramp.load).toEqual({
      executor: 'ramping-arrival-rate',
      startRatePerS: 1,
      stages: [
        { durationMs: 10_000, targetRatePerS: 100 / 60 },
        { durationMs: 5000, targetRatePerS: 0 },
      ],
      maxInFlight: 7,
      gracefulStopMs: 5000,
    });
    const poisson = resolveScenario({ ...base, load: { executor: 'poisson', rate: 2, duration: '1m', burstiness: 0.5, gracefulStop: '1s' } });
    expect(poisson.load).toMatchObject({ executor: 'poisson', ratePerS: 2, burstiness: 0.5, gracefulStopMs: 1000 });
    const poissonDefault = resolveScenario({ ...base, load: { executor: 'poisson', rate: 2, duration: '1m' } });
    expect(poissonDefault.load).toMatchObject({ burstiness: 1 });
    const closed = resolveScenario({ ...base, load: { executor: 'constant-concurrency', concurrency: 8, duration: '2m' } });
    expect(closed.load).toEqual({ executor: 'constant-concurrency', concurrency: 8, durationMs: 120_000, gracefulStopMs: 5000 });
  });

  it('normalises mix weights to sum 1 and keeps entry fields', () => {
    const s = resolveScenario({
      ...base,
      mix: [
        { op: 'run', weight: 3, flowId: 'f1', input: 'x', sessionId: 's1' },
        { op: 'listFlows', weight: 1, query: { limit: 5, offset: 10 } },
        { op: 'getFlow', weight: 4, flowId: 'nope', negative: true },
        { op: 'trigger', input: { a: 1 } },
      ],
    });
    expect(s.mix.map((e) => e.weight)).toEqual([3 / 9, 1 / 9, 4 / 9, 1 / 9]);
    expect(s.mix[0]).toMatchObject({ flowId: 'f1', input: 'x', sessionId: 's1', negative: false });
    expect(s.mix[1]?.query).toEqual({ limit: 5, offset: 10 });
    expect(s.mix[2]?.negative).toBe(true);
    expect(s.mix[3]?.input).toEqual({ a: 1 });
  });

  it('keeps thresholds in order, unparsed, with abortOnFail', () => {
    const s = resolveScenario({
      ...base,
      thresholds: { 'run.latency.p99': '<2s', availability: { expr: '>=99.9%', abortOnFail: true }, 'errors.rate': { expr: ' <1% ' } },
      seed: 77,
      slo: { objective: 0.99 },
      description: 'about',
    });
    expect(s.thresholds).toEqual([
      { key: 'run.latency.p99', expr: '<2s', abortOnFail: false },
      { key: 'availability', expr: '>=99.9%', abortOnFail: true },
      { key: 'errors.rate', expr: '<1%', abortOnFail: false },
    ]);
    expect(s.seed).toBe(77);
    expect(s.objective).toBe(0.99);
    expect(s.description).toBe('about');
  });

  it('names each kind of problem with its path and what is allowed', () => {
    expect(issueAt({ ...base, name: 'My Test' }, 'name')).toMatch(/lower-case letters, digits and dashes/);
    expect(issueAt({ ...base, name: undefined }, 'name')).toBe('is required');
    expect(issueAt({ ...base, tier: 'gold' }, 'tier')).toMatch(/"gold" is not a tier; use "free", "pro"/);
    expect(issueAt({ ...base, tier: { limitPerMinute: 0 } }, 'tier.limitPerMinute')).toMatch(/> 0/);
    expect(issueAt({ ...base, load: { rate: 'fast', duration: '1m' } }, 'load.rate')).toMatch(/^"fast" is not a rate; use a rate such as "100\/min"/);
    expect(issueAt({ ...base, load: { rate: '0/s', duration: '1m' } }, 'load.rate')).toBe('must be > 0');
    expect(issueAt({ ...base, load: { rate: 1, duration: 'forever' } }, 'load.duration')).toMatch(/is not a duration; use a duration such as "500ms"/);
    expect(issueAt({ ...base, load: { rate: 1, duration: '100d' } }, 'load.duration')).toMatch(/at most 90d/);
    expect(issueAt({ ...base, load: { executor: 'ramp', rate: 1 } }, 'load.executor')).toMatch(/"ramp" is not an executor; one of constant-arrival-rate, ramping-arrival-rate/);
    expect(issueAt({ ...base, load: { rate: 1, duration: 1, maxInFlight: 0 } }, 'load.maxInFlight')).toMatch(/integer >= 1/);
    expect(issueAt({ ...base, load: { executor: 'poisson', rate: 1, duration: 1, burstiness: 0 } }, 'load.burstiness')).toMatch(/>= 0.1/);
    expect(issueAt({ ...base, load: { executor: 'ramping-arrival-rate', stages: [] } }, 'load.stages')).toMatch(/at least one stage/);
    expect(issueAt({ ...base, load: { executor: 'ramping-arrival-rate', stages: [{ duration: '1s', target: 'x' }] } }, 'load.stages[0].target')).toMatch(/not a rate/);
    expect(issueAt({ ...base, mix: [] }, 'mix')).toMatch(/at least one entry/);
    expect(issueAt({ ...base, mix: [{ op: 'run' }, { op: 'run' }, { op: 'run', weight: -2 }] }, 'mix[2].weight')).toBe('must be > 0');
    expect(issueAt({ ...base, mix: [{ op: 'runn' }] }, 'mix[0].op')).toMatch(/^"runn" is not an operation; one of run, stream, getRun/);
    expect(issueAt({ ...base, mix: [{ op: 'listFlows', sessionId: 's' }] }, 'mix[0].sessionId')).toMatch(/listFlows takes no sessionId; only run, stream, getHistory do/);
    expect(issueAt({ ...base, mix: [{ op: 'run', input: { a: 1 } }] }, 'mix[0].input')).toMatch(/must be a string/);
    expect(issueAt({ ...base, mix: [{ op: 'trigger', input: 'text' }] }, 'mix[0].input')).toMatch(/JSON object/);
    expect(issueAt({ ...base, thresholds: { 'run.latency.p99': 5 } }, 'thresholds["run.latency.p99"]')).toMatch(/expression such as "<2s"/);
    expect(issueAt({ ...base, thresholds: { x: { expr: '<1s', abortOnFail: 'yes' } } }, 'thresholds.x.abortOnFail')).toMatch(/true or false/);
    expect(issueAt({ ...base, seed: 1.5 }, 'seed')).toMatch(/integer from 0/);
    expect(issueAt({ ...base, slo: { objective: 99.9 } }, 'slo.objective')).toMatch(/between 0 and 1/);
    expect(issueAt({ ...base, mix: 'run' }, 'mix')).toMatch(/must be an array, got string "run"/);
    expect(issueAt(42, '')).toMatch(/must be an object/);
  });

  it('reports unknown fields anywhere, listing the allowed ones', () => {
    expect(issueAt({ ...base, thresholdz: {} }, 'thresholdz')).toMatch(/unknown field.*allowed fields: name, description, tier, load, mix/);
    expect(issueAt({ ...base, load: { rate: 1, duration: 1, maxInFlght: 3 } }, 'load.maxInFlght')).toMatch(/allowed for constant-arrival-rate: executor, rate, duration, maxInFlight/);
    expect(issueAt({ ...base, load: { executor: 'constant-concurrency', concurrency: 2, duration: 1, rate: 1 } }, 'load.rate')).toMatch(
      /allowed for constant-concurrency/,
    );
    expect(issueAt({ ...base, mix: [{ op: 'run', wieght: 2 }] }, 'mix[0].wieght')).toMatch(/unknown field/);
    expect(issueAt({ ...base, slo: { target: 0.9 } }, 'slo.target')).toMatch(/allowed: objective/);
  });

  it('reports every problem at once', () => {
    const issues = issuesOf(
      {
        name: 'Bad',
        tier: 'gold',
        load: { rate: 'fast', duration: 'never' },
        mix: [{ op: 'runn' }, { op: 'run', weight: 0 }],
        typo: true,
      },
      { maxInFlight: -1 },
    );
    expect(issues.map((i) => i.path)).toEqual([
      'name',
      'tier',
      'load.rate',
      'load.duration',
      'mix[0].op',
      'mix[1].weight',
      'typo',
      'overrides.maxInFlight',
    ]);
    const err = (() => {
      try {
        resolveScenario({ ...base, name: 'Bad' }, {}, { source: 'scenarios/x.ts' });
      } catch (e) {
        return e as ConfigError;
      }
      return undefined;
    })();
    expect(err?.code).toBe('FG_CONFIG_INVALID');
    expect(err?.message).toMatch(/invalid scenario "Bad" \(scenarios\/x.ts\) \(1 problem\):\n {2}- name: /);
  });

  it('applies overrides of duration, rate, tier and maxInFlight', () => {
    const s = resolveScenario({ ...base, load: { rate: '100%', duration: '1m' } }, { durationMs: 5000, rate: '50%', tier: 'free', maxInFlight: 9 });
    expect(s.tier).toBe('free');
    expect(s.tierLimitPerMinute).toBe(100);
    expect(s.load).toMatchObject({ ratePerS: 50 / 60, durationMs: 5000, maxInFlight: 9 });
    const abs = resolveScenario(base, { rate: '2/s' });
    expect(abs.load).toMatchObject({ ratePerS: 2 });
    // A tier override stands in for a missing tier.
    const noTier = resolveScenario({ ...base, tier: undefined }, { tier: { limitPerMinute: 60 } });
    expect(noTier.tierLimitPerMinute).toBe(60);
  });

  it('scales a ramp to an overridden duration and peak rate', () => {
    const s = resolveScenario(
      {
        ...base,
        load: {
          executor: 'ramping-arrival-rate',
          startRate: 2,
          stages: [
            { duration: '30s', target: 10 },
            { duration: '10s', target: 4 },
          ],
        },
      },
      { durationMs: 20_000, rate: '5/s' },
    );
    expect(s.load).toMatchObject({
      startRatePerS: 1,
      stages: [
        { durationMs: 15_000, targetRatePerS: 5 },
        { durationMs: 5000, targetRatePerS: 2 },
      ],
    });
  });

  it('rejects overrides that do not fit the scenario or are malformed', () => {
    const closed = { ...base, load: { executor: 'constant-concurrency', concurrency: 2, duration: '1m' } };
    expect(issueAt(closed, 'overrides.rate', { rate: '5/s' })).toMatch(/constant-concurrency has no rate/);
    expect(issueAt(closed, 'overrides.maxInFlight', { maxInFlight: 5 })).toMatch(/no maxInFlight/);
    expect(resolveScenario(closed, { durationMs: 1000 }).load).toMatchObject({ durationMs: 1000 });
    expect(issueAt(base, 'overrides.rate', { rate: 'lots' })).toMatch(/"lots" is not a rate/);
    expect(issueAt(base, 'overrides.durationMs', { durationMs: -1 })).toMatch(/> 0/);
    expect(issueAt(base, 'overrides.tier', { tier: 'gold' as never })).toMatch(/not a tier/);
    // An invalid tier override is reported once, not also as the scenario's tier.
    expect(issuesOf(base, { tier: 'gold' as never }).map((i) => i.path)).toEqual(['overrides.tier']);
  });
});

describe('absurd numbers and hostile keys', () => {
  it('are refused with the bound in the message, before anything runs', () => {
    const raw = { ...base, load: { executor: 'constant-concurrency', concurrency: 1e8, duration: '1s' }, mix: [{ op: 'run', weight: 1e308 }] };
    expect(issuesOf(raw)).toEqual([
      { path: 'load.concurrency', message: 'must be at most 50,000: one process cannot hold more' },
      { path: 'mix[0].weight', message: 'must be at most 1e9 (weights are relative)' },
    ]);
    expect(issueAt({ ...base, load: { rate: '1000000/s', duration: '1s' } }, 'load.rate')).toMatch(/at most 100,000\/s/);
    expect(issueAt({ ...base, load: { rate: '1/s', duration: '1s', maxInFlight: 1e7 } }, 'load.maxInFlight')).toMatch(/at most 100,000/);
  });

  it('name __proto__ and constructor as the unknown fields they are', () => {
    const raw = JSON.parse('{"name":"a","tier":"pro","load":{"rate":"1/s","duration":"1s"},"mix":[{"op":"run"}],"__proto__":{"x":1},"constructor":2}') as unknown;
    expect(issuesOf(raw).map((i) => i.path)).toEqual(['__proto__', 'constructor']);
  });
});

describe('timeouts', () => {
  it('gives each operation its own deadline, else `request`, and leaves unset ones to the client', () => {
    const s = resolveScenario({
      name: 'deadlines',
      tier: 'pro',
      load: { rate: '1/s', duration: '1s' },
      mix: [{ op: 'stream' }],
      timeouts: { request: '30s', stream: '5m', getRun: 0 },
    });
    expect(s.deadlinesMs.stream).toBe(300_000);
    expect(s.deadlinesMs.getRun).toBe(0);
    expect(s.deadlinesMs.listFlows).toBe(30_000);
    const none = resolveScenario({ name: 'none', tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'stream' }] });
    expect(none.deadlinesMs).toEqual({});
  });
});

describe('default thresholds by traffic', () => {
  const keys = (raw: Record<string, unknown>): string[] => resolveScenario(raw).thresholds.map((t) => `${t.key} ${t.expr}${t.implicit === true ? '' : ' (explicit)'}`);
  const load = { rate: '1/s', duration: '1s' };

  it('a mix: availability and premature 429s only', () => {
    expect(keys(base)).toEqual(['availability >=99.9%', 'ratelimit.premature429 ==0']);
  });

  it('a code journey: no failed iteration, and checks at 99.9 % (it may make some)', () => {
    expect(keys({ name: 'j', tier: 'pro', load, journey: async () => {} })).toEqual(['availability >=99.9%', 'ratelimit.premature429 ==0', 'iterations.failed ==0', 'checks >=99.9%']);
  });

  it('steps: checks only when a step (at any depth) checks', () => {
    expect(keys({ name: 's', tier: 'pro', load, steps: [{ op: 'listFlows' }] })).toEqual(['availability >=99.9%', 'ratelimit.premature429 ==0', 'iterations.failed ==0']);
    const nested = { name: 's', tier: 'pro', load, steps: [{ repeat: 2, steps: [{ op: 'listFlows', check: { some: { path: 'flows.length', min: 1 } } }] }] };
    expect(keys(nested)).toEqual(['availability >=99.9%', 'ratelimit.premature429 ==0', 'iterations.failed ==0', 'checks >=99.9%']);
  });

  it('thresholds: {} still turns every default off; written ones replace them', () => {
    expect(keys({ name: 'j', tier: 'pro', load, journey: async () => {}, thresholds: {} })).toEqual([]);
    expect(keys({ name: 'j', tier: 'pro', load, journey: async () => {}, thresholds: { checks: '>=90%' } })).toEqual(['checks >=90% (explicit)']);
  });
});

describe('every problem at once, thresholds included', () => {
  it('two threshold mistakes and a schema mistake are one error of 3 problems, each at its path, the file named', () => {
    const raw = { ...base, load: { rate: '600/min', duration: 'soon' }, thresholds: { 'run.latncy.p99': '<1s', availability: ['rate>0.9'], 'run.latency.p95': '<fast' } };
    let error: ConfigError | undefined;
    try {
      resolveScenario(raw, {}, { source: 'checkout.json' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.issues.map((i) => i.path).sort()).toEqual(['load.duration', 'thresholds.availability', 'thresholds["run.latency.p95"]', 'thresholds["run.latncy.p99"]']);
    expect(error?.message).toMatch(/^invalid scenario "demo" \(checkout\.json\) \(4 problems\):/);
    expect(error?.message).toContain('did you mean "run.latency.p99"?');
    expect(error?.message).toContain('cannot read "<fast"');
  });

  it('a threshold on an operation the mix never sends is found with the rest, and a scope in a one-scenario file too', () => {
    const issues = issuesOf({ ...base, tier: 'gold', thresholds: { 'getRun.latency.p99': '<1s', 'demo:availability': '>=99%' } });
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      expect.stringMatching(/^tier: /),
      'thresholds["getRun.latency.p99"]: getRun is not in the mix, so this would never be observed; the mix sends run',
      'thresholds["demo:availability"]: "demo:" scopes a threshold to one scenario of several; this run has one: write "availability"',
    ]);
  });

  it("in a plan, the plan's thresholds and each scenario's, at their own paths", async () => {
    const { resolveRunPlan } = await import('../../src/scenario/index.js');
    const member = { tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] };
    let error: ConfigError | undefined;
    try {
      resolveRunPlan({ name: 'p', scenarios: { a: { ...member, thresholds: { 'listFlows.latncy.p99': '<1s' } }, b: { ...member, load: { rate: 'lots' } } }, thresholds: { 'c:availability': '>=99%', availabilty: '>=99%' } });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error?.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['scenarios.a.thresholds["listFlows.latncy.p99"]', 'thresholds["c:availability"]', 'thresholds.availabilty', expect.stringMatching(/^scenarios\.b\.load/)]));
    expect(error?.issues.find((i) => i.path === 'thresholds["c:availability"]')?.message).toBe('no scenario "c"; scenarios: a, b');
  });
});
