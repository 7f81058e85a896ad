import { Counter, Gauge, Histogram, register as globalRegistry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { createStreamCollector } from '../../src/collect/stream-collector.js';
import { FastCounter, FastGauge, FastHistogram } from '../../src/export/fast-metrics.js';
import { createRunMetrics, statusClass } from '../../src/export/run-metrics.js';
import { RUN_METRICS } from '../../src/slo/metric-names.js';
import { parseExposition, sumOf, valueOf } from './helpers/exposition.js';
import { BAD, EXPECTED_429, GOOD, PREMATURE_429, makeSample, makeStream } from './helpers/samples.js';

const MS = 1e6;
const ALLOWED_LABELS = new Set(['scenario', 'tier', 'operation', 'flow', 'status_class', 'code', 'outcome', 'kind', 'sli', 'phase', 'le']);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createRunMetrics', () => {
  it('exports requests, SLI events and 429 kinds for a mix of samples', async () => {
    const m = createRunMetrics({ scenario: 'mixed-pro', tier: 'pro' });
    m.observe(makeSample(), GOOD);
    m.observe(makeSample(), GOOD);
    m.observe(makeSample({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' }), BAD);
    m.observe(makeSample({ status: 429, errorCode: 'RATE_LIMITED' }), EXPECTED_429);
    m.observe(makeSample({ status: 429, errorCode: 'RATE_LIMITED' }), PREMATURE_429);
    m.observe(makeSample({ status: 0, errorCode: 'CONNECTION_REFUSED', headersNs: undefined, rateLimit: undefined }), BAD);
    const s = parseExposition(await m.registry.metrics());
    const req = RUN_METRICS.requests.name;
    const base = { scenario: 'mixed-pro', tier: 'pro', operation: 'run', flow: 'flow-a' };
    expect(valueOf(s, req, { ...base, status_class: '2xx', code: 'none', outcome: 'good' })).toBe(2);
    expect(valueOf(s, req, { ...base, status_class: '5xx', code: 'SERVICE_UNAVAILABLE', outcome: 'bad' })).toBe(1);
    expect(valueOf(s, req, { ...base, status_class: '4xx', code: 'RATE_LIMITED', outcome: 'excluded' })).toBe(1);
    expect(valueOf(s, req, { ...base, status_class: '4xx', code: 'RATE_LIMITED', outcome: 'bad' })).toBe(1);
    expect(valueOf(s, req, { ...base, status_class: 'none', code: 'CONNECTION_REFUSED', outcome: 'bad' })).toBe(1);
    const sli = RUN_METRICS.sliEvents.name;
    expect(valueOf(s, sli, { operation: 'run', sli: 'good' })).toBe(2);
    expect(valueOf(s, sli, { operation: 'run', sli: 'bad' })).toBe(3);
    expect(valueOf(s, sli, { operation: 'run', sli: 'excluded' })).toBe(1);
    expect(valueOf(s, RUN_METRICS.rateLimited.name, { operation: 'run', kind: 'expected' })).toBe(1);
    expect(valueOf(s, RUN_METRICS.rateLimited.name, { operation: 'run', kind: 'premature' })).toBe(1);
    expect(valueOf(s, RUN_METRICS.rateLimitRemaining.name)).toBe(900);
    expect(valueOf(s, RUN_METRICS.rateLimitLimit.name)).toBe(1000);
  });

  it('labels each sample of a run of several scenarios with its own scenario and tier', async () => {
    const m = createRunMetrics({ scenario: 'tenants', tier: 'mixed', scenarios: { free: 'free', pro: 'pro' } });
    m.observe(makeSample(), GOOD, 'free');
    m.observe(makeSample({ status: 429, errorCode: 'RATE_LIMITED' }), EXPECTED_429, 'free');
    m.observe(makeSample(), GOOD, 'pro');
    m.observe(makeSample(), GOOD, 'not-in-the-plan');
    m.observeIteration?.('pro', 'completed');
    m.observeCheck?.('free', 'ok', true);
    const s = parseExposition(await m.registry.metrics());
    const sli = RUN_METRICS.sliEvents.name;
    expect(valueOf(s, sli, { scenario: 'free', tier: 'free', sli: 'good' })).toBe(1);
    expect(valueOf(s, sli, { scenario: 'free', tier: 'free', sli: 'excluded' })).toBe(1);
    expect(valueOf(s, sli, { scenario: 'pro', tier: 'pro', sli: 'good' })).toBe(1);
    // A name outside the plan cannot add series: it counts under the run's own labels.
    expect(valueOf(s, sli, { scenario: 'tenants', tier: 'mixed', sli: 'good' })).toBe(1);
    expect(s.some((x) => x.labels.scenario === 'not-in-the-plan')).toBe(false);
    expect(valueOf(s, RUN_METRICS.rateLimitLimit.name, { scenario: 'free' })).toBe(1000);
    expect(valueOf(s, 'flowgauge_iterations_total', { scenario: 'pro', tier: 'pro', result: 'completed' })).toBe(1);
    expect(valueOf(s, 'flowgauge_checks_total', { scenario: 'free', tier: 'free', check: 'ok', result: 'pass' })).toBe(1);
  });

  it('measures latency from the intended start, of the served answers: 429s apart, errors and negative tests in', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'free' });
    // Intended at 0, started 900 ms late (a stalled client), ended at 1.2 s: latency is 1.2 s, not 0.3 s.
    m.observe(makeSample({ intendedNs: 0, startNs: 900 * MS, endNs: 1_200 * MS }), GOOD);
    // Refusals, expected or premature: not the service's work, in their own histogram.
    m.observe(makeSample({ intendedNs: 0, startNs: 0, endNs: 5 * MS, status: 429, errorCode: 'RATE_LIMITED' }), EXPECTED_429);
    m.observe(makeSample({ intendedNs: 0, startNs: 0, endNs: 3 * MS, status: 429, errorCode: 'RATE_LIMITED' }), PREMATURE_429);
    // A 503 is the service's failure and a negative test's 404 (excluded from the SLI) its answer: both served.
    m.observe(makeSample({ intendedNs: 0, startNs: 0, endNs: 40 * MS, status: 503, errorCode: 'SERVICE_UNAVAILABLE' }), BAD);
    m.observe(makeSample({ intendedNs: 0, startNs: 0, endNs: 20 * MS, status: 404, negative: true }), { sli: 'excluded', throttle: 'none' });
    const s = parseExposition(await m.registry.metrics());
    const h = RUN_METRICS.requestDuration.name;
    expect(valueOf(s, `${h}_count`, { operation: 'run' })).toBe(3);
    expect(valueOf(s, `${h}_sum`, { operation: 'run' })).toBeCloseTo(1.26, 9);
    expect(valueOf(s, `${h}_bucket`, { operation: 'run', le: '0.005' })).toBe(0);
    expect(valueOf(s, `${h}_bucket`, { operation: 'run', le: '1' })).toBe(2);
    expect(valueOf(s, `${h}_bucket`, { operation: 'run', le: '1.5' })).toBe(3);
    const r = RUN_METRICS.rateLimitedDuration.name;
    expect(valueOf(s, `${r}_count`, { operation: 'run' })).toBe(2);
    expect(valueOf(s, `${r}_sum`, { operation: 'run' })).toBeCloseTo(0.008, 9);
    expect(valueOf(s, `${r}_bucket`, { operation: 'run', le: '0.005' })).toBe(2);
  });

  it('exports no 429 latency series for an operation that got no 429', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'free' });
    m.observe(makeSample({ op: 'listFlows' }), GOOD);
    const s = parseExposition(await m.registry.metrics());
    expect(s.filter((x) => x.name.startsWith(RUN_METRICS.rateLimitedDuration.name))).toEqual([]);
  });

  it('splits a request into its phases: blocked, connect, tls, wait, receive', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'free' });
    // Called at 0; 30 ms queued, 10 ms TCP, 20 ms TLS, sent at 60 ms, head at 160 ms, end at 200 ms.
    m.observe(makeSample({ intendedNs: 0, startNs: 0, sentNs: 60 * MS, connectNs: 10 * MS, tlsNs: 20 * MS, headersNs: 160 * MS, endNs: 200 * MS }), GOOD);
    // Never reached a connection: no phases.
    m.observe(makeSample({ intendedNs: 0, startNs: 0, endNs: 5 * MS, status: 0, errorCode: 'CONNECTION_REFUSED' }), BAD);
    const s = parseExposition(await m.registry.metrics());
    const h = RUN_METRICS.requestPhase.name;
    const sums = Object.fromEntries(['blocked', 'connect', 'tls', 'wait', 'receive'].map((phase) => [phase, valueOf(s, `${h}_sum`, { operation: 'run', phase })]));
    expect(sums.blocked).toBeCloseTo(0.03, 9);
    expect(sums.connect).toBeCloseTo(0.01, 9);
    expect(sums.tls).toBeCloseTo(0.02, 9);
    expect(sums.wait).toBeCloseTo(0.1, 9);
    expect(sums.receive).toBeCloseTo(0.04, 9);
    expect(valueOf(s, `${h}_count`, { operation: 'run', phase: 'wait' })).toBe(1);
  });

  it('records stream TTFT, time to start, every inter-token gap, tokens and incomplete streams', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    const intendedNs = 10_000 * MS;
    m.observe(makeSample({ op: 'stream', intendedNs, stream: makeStream(intendedNs, { ttftMs: 300, tokens: 4, itlMs: 20 }) }), GOOD);
    m.observe(
      makeSample({ op: 'stream', intendedNs, errorCode: 'STREAM_INCOMPLETE', stream: makeStream(intendedNs, { tokens: 2, complete: false }) }),
      BAD,
    );
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, `${RUN_METRICS.streamTtft.name}_count`)).toBe(2);
    expect(valueOf(s, `${RUN_METRICS.streamTtft.name}_bucket`, { le: '0.3' })).toBe(2);
    expect(valueOf(s, `${RUN_METRICS.streamTimeToStart.name}_sum`)).toBeCloseTo(0.04, 9);
    expect(valueOf(s, `${RUN_METRICS.streamItl.name}_count`)).toBe(3 + 1);
    expect(valueOf(s, RUN_METRICS.streamTokens.name)).toBe(6);
    expect(valueOf(s, RUN_METRICS.streamIncomplete.name)).toBe(1);
  });

  it('records TPOT and output tokens/s per stream, and leaves a stream delivered in one read out of ITL, TPOT and tokens/s as the report does', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    const c = createStreamCollector();
    const intendedNs = 10_000 * MS;
    // 4 tokens 20 ms apart, `end` 5 ms after the last: TPOT 65 ms / 3, 4 tokens in 65 ms.
    const paced = makeSample({ op: 'stream', intendedNs, stream: makeStream(intendedNs, { ttftMs: 300, tokens: 4, itlMs: 20 }) });
    // 20 tokens in one read, `end` 5 ms later: 4,000 tokens/s if it counted.
    const burst = makeSample({ op: 'stream', intendedNs, stream: makeStream(intendedNs, { ttftMs: 400, tokens: 20, itlMs: 0 }) });
    for (const x of [paced, burst]) {
      m.observe(x, GOOD);
      c.observe(x);
    }
    const s = parseExposition(await m.registry.metrics());
    const tpot = RUN_METRICS.streamTpot.name;
    const perS = RUN_METRICS.streamTokensPerSecond.name;
    expect(valueOf(s, `${tpot}_count`)).toBe(1);
    expect(valueOf(s, `${tpot}_sum`)).toBeCloseTo(0.065 / 3, 9);
    expect(valueOf(s, `${perS}_count`)).toBe(1);
    expect(valueOf(s, `${perS}_sum`)).toBeCloseTo(4 / 0.065, 6);
    expect(valueOf(s, `${perS}_bucket`, { le: '50' })).toBe(0);
    expect(valueOf(s, `${perS}_bucket`, { le: '75' })).toBe(1);
    expect(valueOf(s, `${RUN_METRICS.streamItl.name}_count`)).toBe(3);
    expect(valueOf(s, `${RUN_METRICS.streamTtft.name}_count`)).toBe(2);
    expect(valueOf(s, RUN_METRICS.streamTokens.name)).toBe(24);
    // The same counts as report.json's `stream`, from the same samples.
    const r = c.snapshot(false);
    expect(r.deliveredAtOnce).toBe(1);
    expect([r.itlMs.count, r.tpotMs.count, r.tokensPerS.count, r.ttftMs.count]).toEqual([3, 1, 1, 2]);
  });

  it('counts incomplete streams as the report does: 2xx streams without end or with an error event, never a refused one', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    const intendedNs = 10_000 * MS;
    // A 429 and a 503 carry the empty timing of a stream never opened: no incomplete stream.
    const empty = { ...makeStream(intendedNs, { tokens: 0, complete: false }), firstByteNs: undefined, startEventNs: undefined };
    m.observe(makeSample({ op: 'stream', intendedNs, status: 429, errorCode: 'RATE_LIMITED', stream: empty }), EXPECTED_429);
    m.observe(makeSample({ op: 'stream', intendedNs, status: 503, errorCode: 'SERVICE_UNAVAILABLE', stream: empty }), BAD);
    // Ended with `end`, but an error event came first: a failed stream, as report.json's `stream.incomplete` has it.
    m.observe(makeSample({ op: 'stream', intendedNs, errorCode: 'STREAM_ERROR_EVENT', stream: makeStream(intendedNs, { tokens: 2 }) }), BAD);
    m.observe(makeSample({ op: 'stream', intendedNs, stream: makeStream(intendedNs, { tokens: 3 }) }), GOOD);
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, RUN_METRICS.streamIncomplete.name)).toBe(1);
    expect(valueOf(s, RUN_METRICS.streamTokens.name)).toBe(5);
    expect(valueOf(s, `${RUN_METRICS.streamTimeToStart.name}_count`)).toBe(2);
  });

  it('counts contract violations, dropped and scheduled starts, and in-flight requests', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    const v = { op: 'getRun' as const, path: 'progress', expected: 'integer', got: 'string' };
    m.observe(makeSample({ op: 'getRun', violations: [v, { ...v, path: 'status' }] }), BAD);
    m.addDropped(3);
    m.addDropped(2);
    m.addScheduled(10);
    m.setInFlight(7);
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, RUN_METRICS.contractViolations.name, { operation: 'getRun' })).toBe(2);
    expect(valueOf(s, RUN_METRICS.dropped.name)).toBe(5);
    expect(valueOf(s, RUN_METRICS.scheduled.name)).toBe(10);
    expect(valueOf(s, RUN_METRICS.inFlight.name)).toBe(7);
  });

  it('labels every series with the target when given one (a name, never a URL), and none without', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro', target: 'staging.example.com' });
    m.observe(makeSample(), GOOD);
    m.observe(makeSample({ op: 'stream', intendedNs: 0, stream: makeStream(0) }), GOOD);
    const s = parseExposition(await m.registry.metrics());
    expect(s.length).toBeGreaterThan(20);
    expect(s.filter((x) => x.labels.target !== 'staging.example.com')).toEqual([]);
    // Workers send their registries as JSON: the label goes with it.
    const json = await m.registry.getMetricsAsJSON();
    expect(json.flatMap((x) => x.values).every((v) => v.labels.target === 'staging.example.com')).toBe(true);
    const plain = createRunMetrics({ scenario: 's', tier: 'pro' });
    plain.observe(makeSample(), GOOD);
    expect(parseExposition(await plain.registry.metrics()).some((x) => 'target' in x.labels)).toBe(false);
    for (const bad of ['https://api.example.com/v1?token=x', 'a b', '']) expect(() => createRunMetrics({ scenario: 's', tier: 'pro', target: bad })).toThrow(InvalidArgumentError);
  });

  it('exposes zero series from the start so ratios and rates read 0, not "no data"', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    let s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, RUN_METRICS.dropped.name)).toBe(0);
    expect(valueOf(s, RUN_METRICS.inFlight.name)).toBe(0);
    m.observe(makeSample({ op: 'listFlows' }), GOOD);
    s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, RUN_METRICS.sliEvents.name, { operation: 'listFlows', sli: 'bad' })).toBe(0);
    expect(valueOf(s, RUN_METRICS.rateLimited.name, { operation: 'listFlows', kind: 'premature' })).toBe(0);
  });

  it('caches series cells: the steady state creates no series and formats no labels', () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    const samples = [
      [makeSample(), GOOD],
      [makeSample({ op: 'stream', stream: makeStream(0) }), GOOD],
      [makeSample({ status: 429, errorCode: 'RATE_LIMITED' }), PREMATURE_429],
      [makeSample({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' }), BAD],
    ] as const;
    for (const [s, v] of samples) m.observe(s, v);
    const spies = [FastCounter, FastGauge, FastHistogram].map((C) => vi.spyOn(C.prototype, 'cell'));
    const promSpies = [Counter, Gauge, Histogram].map((C) => vi.spyOn(C.prototype, 'labels'));
    for (let i = 0; i < 1000; i++) for (const [s, v] of samples) m.observe(s, v);
    for (const spy of [...spies, ...promSpies]) expect(spy).not.toHaveBeenCalled();
  });

  it('folds flows beyond maxFlows into "other" so the flow label stays bounded', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro', maxFlows: 2 });
    for (let i = 0; i < 50; i++) m.observe(makeSample({ flowId: `flow-${i}` }), GOOD);
    m.observe(makeSample({ flowId: undefined }), GOOD);
    const s = parseExposition(await m.registry.metrics()).filter((x) => x.name === RUN_METRICS.requests.name);
    expect(new Set(s.map((x) => x.labels.flow))).toEqual(new Set(['flow-0', 'flow-1', 'other', 'none']));
    expect(sumOf(s, RUN_METRICS.requests.name, { flow: 'other' })).toBe(48);
  });

  it('merges extra latency buckets (threshold values) into the defaults', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro', latencyBucketsS: [1.7, 2] });
    m.observe(makeSample({ intendedNs: 0, endNs: 1_600 * MS }), GOOD);
    const s = parseExposition(await m.registry.metrics());
    expect(valueOf(s, `${RUN_METRICS.requestDuration.name}_bucket`, { le: '1.7' })).toBe(1);
    expect(m.options.requestBucketsS.filter((b) => b === 2)).toHaveLength(1);
  });

  it('uses only bounded labels, its own registry, and never the global one', async () => {
    const m = createRunMetrics({ scenario: 's', tier: 'pro' });
    m.observe(makeSample({ op: 'stream', stream: makeStream(0) }), GOOD);
    m.observe(makeSample({ status: 429 }), EXPECTED_429);
    const s = parseExposition(await m.registry.metrics());
    for (const x of s) for (const k of Object.keys(x.labels)) expect(ALLOWED_LABELS.has(k), `label ${k} of ${x.name}`).toBe(true);
    const globalNames = (await globalRegistry.getMetricsAsJSON()).map((x) => x.name);
    expect(globalNames.filter((n) => n.startsWith('flowgauge_'))).toEqual([]);
  });

  it('rejects bad options at construction', () => {
    expect(() => createRunMetrics({ scenario: '', tier: 'pro' })).toThrow(InvalidArgumentError);
    expect(() => createRunMetrics({ scenario: 's', tier: 'pro', latencyBucketsS: [-1] })).toThrow(InvalidArgumentError);
  });

  it('classifies status codes', () => {
    expect([0, 200, 204, 301, 404, 429, 503, 999].map(statusClass)).toEqual(['none', '2xx', '2xx', '3xx', '4xx', '4xx', '5xx', 'none']);
  });
});
