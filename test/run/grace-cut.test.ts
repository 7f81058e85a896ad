/**
 * The end of a run is not the target's failure (issue 28, item 4). When the grace period after
 * the schedule runs out: a journey's request that would start after it is never sent nor
 * counted, think time it cuts ends the iteration as `interrupted`, and a request still open is
 * `load.cut` (excluded from the SLI, shown with the grace period named) unless it had already
 * passed its own deadline, which stays the target's `TIMEOUT`.
 *
 * Against the reference service, time is real: the slow answers come from its `latencyMs`
 * fault, and each expectation holds with a margin of at least 250 ms either way. The engine's
 * own rule (own deadline passed or not) is also checked on a fake clock with a client that
 * never answers, where nothing depends on this machine's speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createTransportError, type CallOptions, type Client, type ResponseMeta } from '../../src/api/index.js';
import { createFakeClock, type Clock } from '../../src/core/clock.js';
import { renderMarkdown, renderSummary, type Report } from '../../src/report/index.js';
import { createRunMetrics } from '../../src/export/index.js';
import { createMetricsOutput, executeRun, type RunOptions } from '../../src/run/index.js';
import { parseExposition, sumOf } from '../export/helpers/exposition.js';
import { resolveScenario, type Journey } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

const TOKEN = 'fg_grace_cut_token';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function service(options: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  const s = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 100_000 } } }, ...options });
  cleanups.push(() => s.close());
  return s;
}

function run(s: ReferenceService, scenario: Record<string, unknown>, more: Partial<RunOptions> = {}) {
  const client = createClient({ baseUrl: s.baseUrl, token: TOKEN, connections: 16 });
  cleanups.push(() => client.close());
  return executeRun({ scenario: resolveScenario({ tier: { limitPerMinute: 100_000 }, ...scenario }), client, target: { baseUrl: s.baseUrl, embedded: true }, ...more });
}

const errorCodes = (r: Report): string[] => Object.values(r.ops).flatMap((o) => Object.keys(o?.errors ?? {}));

describe('the end of the grace period', () => {
  it('a journey sends nothing after it: 8 streams sent, 8 counted, none TIMEOUT; the cut iterations are interrupted', async () => {
    // createSession answers after 250 ms, so iteration k (started at k × 0.5 s) wakes from its
    // 3 s think time at k × 0.5 + 3.25 s: k = 0 and 1 before the grace period ends (3 + 1 s),
    // k = 2..5 after it. Before the fix those 4 second streams were counted as TIMEOUT unsent.
    const s = await service({ faults: { latencyMs: { createSession: 250 } } });
    const journey: Journey = async (vu) => {
      const session = await vu.createSession({ flow_id: vu.flowId, user_id: `user-${vu.iteration}` });
      if (!session.ok) return vu.fail(`createSession: ${session.error.code}`);
      await vu.stream(vu.flowId, { input: 'first turn', session_id: session.value.id });
      await vu.sleep('3s');
      await vu.stream(vu.flowId, { input: 'second turn', session_id: session.value.id });
    };
    const { report, passed } = await run(s, { name: 'grace-journey', load: { rate: '2/s', duration: '3s', gracefulStop: '1s' }, journey });
    expect(s.stats().streams.started).toBe(8);
    expect(report.ops.stream).toMatchObject({ count: 8, good: 8, bad: 0, errors: {} });
    expect(errorCodes(report)).toEqual([]);
    expect(report.iterations).toMatchObject({ started: 6, completed: 2, interrupted: 4, failed: 0 });
    expect(report.load.cut).toBeUndefined();
    expect(report.slo).toMatchObject({ bad: 0, availability: 1 });
    expect(passed).toBe(true);
  }, 20_000);

  it('a request still open when it ends, within its own deadline, is load.cut: not TIMEOUT, not in the SLI, named with the grace period', async () => {
    // getHistory answers after 10 s; the one request of the schedule (at 0 s) is open when the
    // grace period ends at 2 s, far inside the default 60 s deadline.
    const s = await service({ faults: { latencyMs: { getHistory: 10_000 } } });
    const { report } = await run(s, { name: 'grace-cut', load: { rate: '1/s', duration: '1s', gracefulStop: '1s' }, mix: [{ op: 'getHistory' }] });
    expect(s.stats().faults.delayed).toBe(1);
    expect(report.load).toMatchObject({ started: 1, cut: 1, gracefulStopS: 1 });
    expect(report.load.cancelled).toBeUndefined();
    expect(report.ops.getHistory).toBeUndefined();
    expect(errorCodes(report)).toEqual([]);
    expect(report.slo).toMatchObject({ good: 0, bad: 0 });
    expect(renderSummary(report)).toContain('cut     1 request still open when the 1 s grace period ended (unjudged: availability is the range they leave)');
    expect(renderMarkdown(report)).toContain('- Cut: 1 request still open when the 1 s grace period ended (unjudged: availability is the range they leave)');
  }, 20_000);

  it("a cut stream's measured parts still count: its first token in the report's TTFT and in /metrics, the stream itself in no count", async () => {
    // Streams of 10 tokens 1 s apart: the first token comes in about 20 ms, the end long after
    // the 1 s grace period. Both streams of the schedule are cut with their first tokens in.
    const s = await service({ latency: { ttftMs: 20, itlMs: 1000, jitter: 0, tokens: { min: 10, max: 10 } } });
    const metrics = createRunMetrics({ scenario: 'grace-stream', tier: 'custom' });
    const { report, passed } = await run(s, { name: 'grace-stream', load: { rate: '2/s', duration: '1s', gracefulStop: '1s' }, mix: [{ op: 'stream' }] }, { outputs: [createMetricsOutput(metrics)] });
    expect(report.load.cut).toBe(2);
    expect(report.stream.count).toBe(0);
    expect(report.stream.ttftMs.count).toBe(2);
    expect(report.stream.ttftMs.p50).toBeGreaterThanOrEqual(20);
    // The gaps between the tokens that came in the grace period are measured parts too.
    expect(report.stream.itlMs.count).toBeGreaterThan(0);
    expect(report.slo).toMatchObject({ good: 0, bad: 0, cut: 2, availability: null });
    // Nothing was judged: the objective is not met.
    expect(passed).toBe(false);
    const series = parseExposition(await metrics.registry.metrics());
    expect(sumOf(series, 'flowgauge_stream_ttft_seconds_count')).toBe(report.stream.ttftMs.count);
    expect(sumOf(series, 'flowgauge_stream_itl_seconds_count')).toBe(report.stream.itlMs.count);
    expect(sumOf(series, 'flowgauge_requests_total')).toBe(0);
  }, 20_000);

  it('a request past its own deadline when it ends stays TIMEOUT (bad)', async () => {
    // Its deadline (1.5 s) passes 0.5 s before the grace period ends (2 s): whether the client's
    // sweep or the end of the grace period reaches it first, it is the target's TIMEOUT.
    const s = await service({ faults: { latencyMs: { getHistory: 10_000 } } });
    const { report } = await run(s, { name: 'grace-timeout', load: { rate: '1/s', duration: '1s', gracefulStop: '1s' }, timeouts: { getHistory: '1500ms' }, mix: [{ op: 'getHistory' }] });
    expect(report.ops.getHistory).toMatchObject({ count: 1, good: 0, bad: 1, errors: { TIMEOUT: 1 } });
    expect(report.load.cut).toBeUndefined();
  }, 20_000);
});

/** A client whose `getFlow` never answers: it ends only when its signal aborts, on `clock`. */
function silentClient(clock: Clock): Client {
  const meta = (startNs: number, endNs: number, status: number): ResponseMeta => ({
    status,
    requestId: undefined,
    rateLimit: undefined,
    startNs,
    headersNs: status === 0 ? undefined : endNs,
    endNs,
    sentNs: startNs,
    connectNs: 0,
    tlsNs: 0,
  });
  const never = (opts: CallOptions | undefined) =>
    new Promise((resolve) => {
      const startNs = clock.nowNs();
      const end = (): void => resolve({ ok: false, error: createTransportError('ABORTED', 'aborted'), meta: meta(startNs, clock.nowNs(), 0), violations: [] });
      if (opts?.signal?.aborted === true) end();
      else opts?.signal?.addEventListener('abort', end, { once: true });
    });
  return {
    baseUrl: 'http://silent.invalid/v1',
    webhookHost: 'http://silent.invalid',
    listFlows: () => Promise.resolve({ ok: true, value: { flows: [{ id: 'flow_silent' }], total: 1 }, meta: meta(0, 0, 200), violations: [] }),
    getFlow: (_id: string, opts?: CallOptions) => never(opts),
    close: () => Promise.resolve(),
  } as unknown as Client;
}

/** Runs a one-request schedule (1 s, grace 1 s) against the silent client on a fake clock. */
async function silentRun(timeouts: Record<string, string> | undefined): Promise<Report> {
  const clock = createFakeClock();
  const outcome = executeRun({
    scenario: resolveScenario({
      name: 'silent',
      tier: 'pro',
      load: { rate: '1/s', duration: '1s', gracefulStop: '1s' },
      mix: [{ op: 'getFlow' }],
      ...(timeouts !== undefined ? { timeouts } : {}),
    }),
    client: silentClient(clock),
    clock,
    target: { baseUrl: 'http://silent.invalid/v1', embedded: false },
  });
  let done = false;
  void outcome.finally(() => (done = true));
  // 100 ms of fake time per turn of the event loop, until the run has reported.
  for (let turns = 0; !done && turns < 1000; turns++) {
    clock.advance(100e6);
    await new Promise((r) => setImmediate(r));
  }
  return (await outcome).report;
}

describe('the rule on a fake clock (a request open for about 2 s when the grace period ends)', () => {
  it('within its own deadline (5 s, or the default 60 s): cut', async () => {
    for (const timeouts of [{ getFlow: '5s' }, undefined]) {
      const report = await silentRun(timeouts);
      expect(report.load).toMatchObject({ started: 1, cut: 1, gracefulStopS: 1 });
      expect(report.ops.getFlow).toBeUndefined();
      expect(report.slo.bad).toBe(0);
    }
  });

  it('past its own deadline (1.5 s), not yet swept by the client: TIMEOUT', async () => {
    const report = await silentRun({ getFlow: '1500ms' });
    expect(report.load.cut).toBeUndefined();
    expect(report.ops.getFlow).toMatchObject({ count: 1, bad: 1, errors: { TIMEOUT: 1 } });
  });
});
