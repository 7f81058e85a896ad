/**
 * The audit after a run against the reference service: `/analytics/usage` agrees exactly with
 * what the client saw, differences are reported when the client could not see everything,
 * and session histories are read back and checked.
 */
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { REPORT_JSON_SCHEMA, renderMarkdown } from '../../src/report/index.js';
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService } from '../../src/target/index.js';
import { runAgainstService, TEST_TOKEN } from './helpers.js';
import { runWithReceiver, TOKEN } from '../notifications/helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const scenario = (mix: Record<string, unknown>[], load: Record<string, unknown> = { executor: 'constant-arrival-rate', rate: '60/s', duration: '500ms' }) => ({
  name: 'audit',
  tier: 'pro',
  load,
  mix,
});

describe('usage audit', () => {
  it('agrees with the embedded service for runs and streams, failures included', async () => {
    const r = await runAgainstService(scenario([{ op: 'run', weight: 2 }, { op: 'stream', weight: 1 }, { op: 'listFlows', weight: 1 }]), {
      service: { failureRate: 0.25, seed: 7 },
      run: { audit: true },
    });
    cleanups.push(r.close);
    const { report } = r.outcome;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(renderMarkdown(report)).toContain('## Audit');
    const u = report.audit?.usage;
    expect(u).toBeDefined();
    if (u === undefined) return;
    const seen = (report.ops.run?.count ?? 0) + (report.stream.completed ?? 0);
    expect(u.scope).toBe('per-flow');
    expect(u.errors).toEqual([]);
    expect(u.diff).toMatchObject({ totalRuns: 0, successfulRuns: 0, failedRuns: 0 });
    expect(u.client.failedRuns).toBeGreaterThan(0);
    expect(u.client.totalRuns).toBe(seen + (report.stream.incomplete ?? 0));
    // A failed stream says nothing of the tokens the service counts for it: only those differ.
    const failedStreams = report.stream.count - report.stream.completed;
    expect(u.clientUnknown.runsWithoutTokens).toBe(failedStreams);
    if (failedStreams === 0) expect(u.diff?.totalTokens).toBe(0);
    else expect(u.diff?.totalTokens).toBeGreaterThan(0);
    expect(u.exact).toBe(failedStreams === 0);
    expect(u.flows).toHaveLength(1);
    // The audit's own queries are not part of the load.
    expect(report.ops.getUsage).toBeUndefined();
  });

  it('agrees exactly for asynchronous runs followed to their end', async () => {
    const r = await runAgainstService(scenario([{ op: 'run', weight: 1 }], { executor: 'constant-arrival-rate', rate: '40/s', duration: '250ms', gracefulStop: '60s' }), {
      service: { runMode: 'async', latency: { ttftMs: 5, itlMs: 1, jitter: 0, runOverheadMs: 0 } },
      run: { audit: true, follow: { pollIntervalMs: 10 } },
    });
    cleanups.push(r.close);
    const u = r.outcome.report.audit?.usage;
    console.log(JSON.stringify({ load: r.outcome.report.load, a: r.outcome.report.asyncRuns, ops: r.outcome.report.ops.run, warn: r.outcome.report.warnings }));
    // The grace period outlasts any machine's delay (a request still open at its end would be
    // load.cut, and its run never followed): all ten are sent, followed and audited.
    expect(r.outcome.report.load.started).toBe(10);
    expect(r.outcome.report.asyncRuns?.final.completed).toBe(10);
    expect(u?.exact).toBe(true);
    expect(u?.client.totalRuns).toBe(10);
  });

  it('counts triggers by their notifications, so a trigger mix agrees exactly with a receiver', async () => {
    const r = await runWithReceiver(scenario([{ op: 'run', weight: 1 }, { op: 'trigger', weight: 1 }]), { run: { audit: true } });
    cleanups.push(r.close);
    const { report } = r.outcome;
    const u = report.audit?.usage;
    expect(u?.exact).toBe(true);
    expect(u?.client.totalRuns).toBe((report.ops.run?.count ?? 0) + (report.ops.trigger?.count ?? 0));
    expect(u?.clientUnknown.unresolved).toBe(0);
    expect(TOKEN).not.toBe('');
  });

  it('reports the difference when the client cannot see how triggers ended', async () => {
    const r = await runAgainstService(scenario([{ op: 'run', weight: 1 }, { op: 'trigger', weight: 1 }]), { run: { audit: true } });
    cleanups.push(r.close);
    const { report } = r.outcome;
    const triggers = report.ops.trigger?.count ?? 0;
    const u = report.audit?.usage;
    expect(triggers).toBeGreaterThan(0);
    expect(u?.exact).toBe(false);
    expect(u?.clientUnknown.unresolved).toBe(triggers);
    expect(u?.diff?.totalRuns).toBe(triggers);
    expect(u?.service?.totalRuns).toBe((report.ops.run?.count ?? 0) + triggers);
    expect(r.outcome.passed).toBe(true);
  });
});

async function sessionRun(concurrency: number, failureRate = 0) {
  const service = await startReferenceService({
    latency: 'none',
    failureRate,
    seed: 3,
    tokens: { [TEST_TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } },
  });
  cleanups.push(() => service.close());
  const client = createClient({ baseUrl: service.baseUrl, token: TEST_TOKEN });
  cleanups.push(() => client.close());
  const flow = await client.listFlows({ limit: 1 });
  const flowId = flow.ok ? (flow.value.flows[0]?.id ?? '') : '';
  const session = await client.createSession({ flow_id: flowId, user_id: 'audit' });
  const sessionId = session.ok ? session.value.id : '';
  // Messages from before the run are not the run's to judge.
  await client.run(flowId, { input: 'earlier', session_id: sessionId });
  const outcome = await executeRun({
    scenario: resolveScenario(
      scenario([{ op: 'run', flowId, sessionId, input: 'hello there' }, { op: 'stream', flowId, sessionId, input: 'and again' }], {
        executor: 'constant-concurrency',
        concurrency,
        duration: '300ms',
      }),
    ),
    client,
    target: { baseUrl: service.baseUrl, embedded: true },
    audit: true,
    follow: true,
    generator: true,
  });
  const history = await client.getHistory(sessionId);
  return { outcome, sessionId, history: history.ok ? history.value.messages : [] };
}

describe('sessions audit', () => {
  it('finds a sequential session in order, alternating, with two messages per run', async () => {
    const { outcome, sessionId, history } = await sessionRun(1);
    const s = outcome.report.audit?.sessions;
    const runs = (outcome.report.ops.run?.count ?? 0) + (outcome.report.ops.stream?.count ?? 0);
    expect(runs).toBeGreaterThan(2);
    expect(s).toEqual({ sessions: 1, runs, checked: 1, inOrder: 1, alternating: 1, countMatches: 1, concurrent: 0, problems: [] });
    const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);
    expect(validate(outcome.report), JSON.stringify(validate.errors)).toBe(true);
    expect(history).toHaveLength(2 + 2 * runs);
    expect(outcome.report.audit?.usage?.exact).toBe(true);
    expect(history.slice(2).every((m, i) => m.role === (i % 2 === 0 ? 'user' : 'assistant'))).toBe(true);
    expect(sessionId).toMatch(/\S/);
  });

  it('does not judge the order of overlapping runs, and still counts their messages', async () => {
    const { outcome } = await sessionRun(4);
    const s = outcome.report.audit?.sessions;
    expect(s?.concurrent).toBe(1);
    expect(s?.countMatches).toBe(1);
    expect(s?.problems.filter((p) => p.check === 'count')).toEqual([]);
  });

  it('expects one message for a failed run and does not judge alternation when runs fail', async () => {
    const { outcome, history } = await sessionRun(1, 0.5);
    const s = outcome.report.audit?.sessions;
    const failed = outcome.report.audit?.usage?.client.failedRuns ?? 0;
    expect(failed).toBeGreaterThan(0);
    // The audit's expectation (2 per completed run, 1 per failed one) holds on the reference service.
    expect(s?.countMatches).toBe(1);
    expect(s?.alternating).toBe(0);
    expect(history.filter((m) => m.role === 'user')).toHaveLength(1 + (s?.runs ?? 0));
  });
});
