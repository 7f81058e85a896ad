import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { parsePlanThresholds } from '../../src/run/plan-thresholds.js';
import { planOf, resolveRunPlan } from '../../src/scenario/index.js';

const mix = (thresholds: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  planOf(resolveRunPlan({ name: 't', tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }, { op: 'run' }], thresholds, ...extra }));

function messages(thresholds: Record<string, unknown>, extra: Record<string, unknown> = {}): string[] {
  try {
    parsePlanThresholds(mix(thresholds, extra));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

describe('thresholds are checked before the run', () => {
  it('refuses a threshold on an operation or a stream the mix never sends, naming the mix', () => {
    expect(messages({ 'getHistory.latency.p99': '<1s', 'stream.ttft.p95': '<1s', 'run.latency.p99': '<2s' })).toEqual([
      'thresholds["getHistory.latency.p99"]: getHistory is not in the mix, so this would never be observed; the mix sends listFlows, run',
      'thresholds["stream.ttft.p95"]: no stream is in the mix, so this would never be observed; the mix sends listFlows, run',
    ]);
    expect(messages({ checks: '>=99%' })[0]).toMatch(/iterations and checks come from a journey or steps/);
  });

  it('accepts any operation for a journey, which may send anything', () => {
    const plan = planOf(resolveRunPlan({ name: 'j', tier: 'pro', load: { rate: '1/s', duration: '1s' }, steps: [{ op: 'listFlows' }], thresholds: { 'getHistory.latency.p99': '<1s', checks: '>=99%' } }));
    expect(parsePlanThresholds(plan).all).toHaveLength(2);
  });

  it("explains k6's p(95)<500 and fixes an operation's case", () => {
    expect(messages({ 'run.latency': 'p(95)<500' })).toEqual([
      'thresholds["run.latency"]: threshold "run.latency": "p(95)<500" is k6\'s form; in flowgauge the statistic goes in the key: "run.latency.p95": "<500"',
    ]);
    expect(messages({ 'listflows.latency.p99': '<1s' })[0]).toContain('did you mean "listFlows.latency.p99"?');
  });

  it('takes delayAbortEval (k6) for abort-on-fail thresholds', () => {
    const t = parsePlanThresholds(mix({ 'run.latency.p99': { expr: '<1s', abortOnFail: true, delayAbortEval: '10s' } }));
    expect(t.abortDelayMs?.get('run.latency.p99')).toBe(10_000);
    expect(() => mix({ 'run.latency.p99': { expr: '<1s', delayAbortEval: 'later' } })).toThrow(/delayAbortEval/);
  });
});

describe('a run without thresholds is still judged', () => {
  const load = { rate: '1/s', duration: '1s' };
  it('on availability against its objective and no premature 429s; thresholds: {} turns them off', () => {
    const judged = parsePlanThresholds(planOf(resolveRunPlan({ name: 'd', tier: 'pro', load, mix: [{ op: 'listFlows' }], slo: { objective: 0.99 } })));
    expect(judged.all.map((t) => [t.key, t.op, t.value])).toEqual([
      ['availability', '>=', 0.99],
      ['ratelimit.premature429', '==', 0],
    ]);
    expect(parsePlanThresholds(planOf(resolveRunPlan({ name: 'd', tier: 'pro', load, mix: [{ op: 'listFlows' }], thresholds: {} }))).all).toEqual([]);
  });

  it('a plan of several scenarios, none with thresholds, is judged as a whole', () => {
    const plan = planOf(resolveRunPlan({ name: 'p', scenarios: { a: { tier: 'pro', load, mix: [{ op: 'listFlows' }] }, b: { tier: 'free', load, mix: [{ op: 'run' }] } } }));
    expect(parsePlanThresholds(plan).all.map((t) => t.key)).toEqual(['availability', 'ratelimit.premature429']);
  });
});

describe('the summary of a run judged on the defaults', () => {
  it('says the thresholds were defaults', async () => {
    const { renderSummary } = await import('../../src/report/summary.js');
    const { evaluateReportThresholds } = await import('../../src/report/metrics.js');
    const { fixtureReport } = await import('../report/fixture.js');
    const judged = parsePlanThresholds(planOf(resolveRunPlan({ name: 'd', tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'run' }] })));
    const report = evaluateReportThresholds(fixtureReport(), judged.all);
    expect(report.thresholds.every((t) => t.implicit === true)).toBe(true);
    expect(renderSummary(report)).toContain('thresholds (the defaults: the scenario sets none; thresholds: {} turns them off)');
  });
});
