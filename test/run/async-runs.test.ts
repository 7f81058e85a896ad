/**
 * Runs that answer `running` (the reference service's async mode), followed to their end by
 * polling: completion, progress range and monotonicity, the cap, the timeout, the stop.
 */
import { Ajv } from 'ajv';
import { describe, expect, it, afterEach } from 'vitest';
import { REPORT_JSON_SCHEMA, renderMarkdown } from '../../src/report/index.js';
import { createAsyncRunsCollector } from '../../src/collect/index.js';
import { runAgainstService } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const asyncScenario = (rate = '40/s', duration = '500ms'): Record<string, unknown> => ({
  name: 'async-runs',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate, duration },
  mix: [{ op: 'run', weight: 1 }],
});

// Runs take 20 ms + up to 12 × 4 ms: several polls at a 15 ms interval.
const slowish = { runMode: 'async' as const, latency: { ttftMs: 20, itlMs: 4, jitter: 0, tokens: { min: 6, max: 12 }, runOverheadMs: 1 } };

describe('following asynchronous runs', () => {
  it('follows every running run to completion and reports progress, polls and the interval bias', async () => {
    const r = await runAgainstService(asyncScenario(), { service: slowish, run: { follow: { pollIntervalMs: 15 } } });
    cleanups.push(r.close);
    const { report } = r.outcome;
    const runs = report.ops.run?.count ?? 0;
    expect(runs).toBe(20);
    const a = report.asyncRuns;
    expect(a).toBeDefined();
    if (a === undefined) return;
    expect(a.followed).toEqual({ run: runs, trigger: 0 });
    expect(a.final).toEqual({ completed: runs, failed: 0, timeout: 0, abandoned: 0, error: 0 });
    expect(a.active).toBe(0);
    expect(a.pollIntervalMs).toBe(15);
    expect(a.meanBiasMs).toBe(7.5);
    expect(a.timeToCompletionMs.count).toBe(runs);
    expect(a.pollsPerRun.runs).toBe(runs);
    expect(a.pollsPerRun.mean).toBeGreaterThanOrEqual(1);
    expect(a.polls.total).toBeGreaterThanOrEqual(runs);
    expect(a.polls.statuses['200']).toBe(a.polls.total);
    expect(a.progress.monotonic).toBe(true);
    expect(a.progress.decreases).toBe(0);
    expect(a.progress.min).toBeGreaterThanOrEqual(0);
    expect(a.progress.max).toBe(100);
    expect(a.progress.atCompletion).toEqual({ min: 100, max: 100 });
    expect(a.progress.outside0to100).toBe(0);
    // Polls are not part of the scenario's load.
    expect(report.ops.getRun).toBeUndefined();
    const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(renderMarkdown(report)).toContain('progress never went down');
  });

  it('counts runs over the follow cap instead of following them', async () => {
    const r = await runAgainstService(asyncScenario('80/s', '250ms'), {
      service: { ...slowish, latency: { ...slowish.latency, ttftMs: 150 } },
      run: { follow: { pollIntervalMs: 20, maxConcurrent: 2 } },
    });
    cleanups.push(r.close);
    const a = r.outcome.report.asyncRuns;
    const runs = r.outcome.report.ops.run?.count ?? 0;
    expect(a?.notFollowed.cap).toBeGreaterThan(0);
    expect((a?.followed.run ?? 0) + (a?.notFollowed.cap ?? 0)).toBe(runs);
    expect(a?.final.completed).toBe(a?.followed.run);
  });

  it('gives up on a run after the follow timeout', async () => {
    const r = await runAgainstService(asyncScenario('20/s', '100ms'), {
      service: { ...slowish, latency: { ...slowish.latency, ttftMs: 10_000 } },
      run: { follow: { pollIntervalMs: 20, timeoutMs: 120 } },
    });
    cleanups.push(r.close);
    const a = r.outcome.report.asyncRuns;
    expect(a?.final.timeout).toBe(r.outcome.report.ops.run?.count);
    expect(a?.final.completed).toBe(0);
    expect(a?.timeToCompletionMs.count).toBe(0);
  });

  it('abandons follows when the run is stopped', async () => {
    const stop = new AbortController();
    const r = await runAgainstService(asyncScenario('20/s', '2s'), {
      service: { ...slowish, latency: { ...slowish.latency, ttftMs: 10_000 } },
      run: { follow: { pollIntervalMs: 20 }, stopSignal: stop.signal },
      during: () => setTimeout(() => stop.abort(), 300),
    });
    cleanups.push(r.close);
    const { report } = r.outcome;
    expect(report.interrupted).toBe(true);
    expect(report.asyncRuns?.final.abandoned).toBe(report.asyncRuns?.followed.run);
    expect(report.asyncRuns?.active).toBe(0);
  });

  it('turns following off with follow: false', async () => {
    const r = await runAgainstService(asyncScenario('20/s', '100ms'), { service: slowish, run: { follow: false } });
    cleanups.push(r.close);
    expect(r.outcome.report.asyncRuns).toBeUndefined();
  });
});

describe('async runs collector', () => {
  it('finds decreases, values outside 0–100, non-integers and missing progress', () => {
    const c = createAsyncRunsCollector({ pollIntervalMs: 100 });
    const ok = (progress: unknown, runStatus = 'running') => ({ httpStatus: 200, errorCode: undefined, runStatus, progress });
    const a = c.begin('run', 0);
    for (const p of [0, 40, 30, 35, 120]) a.poll(ok(p));
    a.poll(ok(100, 'completed'));
    a.end('completed', 5e8);
    const b = c.begin('trigger', 0);
    b.poll(ok(-1));
    b.poll(ok(2.5));
    b.poll(ok('half'));
    b.poll({ httpStatus: 429, errorCode: 'RATE_LIMITED', runStatus: undefined, progress: undefined });
    b.end('failed', 1e9);
    c.skipped('cap');
    const s = c.snapshot();
    expect(s.progress).toMatchObject({ min: -1, max: 120, decreases: 2, runsWithDecrease: 1, monotonic: false, outside0to100: 2, nonInteger: 1, missing: 1 });
    expect(s.progress.atCompletion).toEqual({ min: 100, max: 100 });
    expect(s.final).toMatchObject({ completed: 1, failed: 1 });
    expect(s.polls).toEqual({ total: 10, statuses: { '200': 9, '429': 1 }, errors: { RATE_LIMITED: 1 } });
    expect(s.pollsPerRun).toEqual({ runs: 2, mean: 5, max: 6 });
    expect(s.triggers.completedByPolling).toBe(1);
    expect(s.timeToCompletionMs.max).toBeCloseTo(1000, -1);
    expect(s.notFollowed.cap).toBe(1);
    expect(s.meanBiasMs).toBe(50);
  });
});
