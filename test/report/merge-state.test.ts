/**
 * Merge is exact over everything a run reports: merging the report of one run gives back every
 * section with the same figures (notifications, following, the audit, journeys, scenarios
 * included), and a report merged from two shards' reports equals the sum of its parts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLatencyHistogram, encodeHistogram, recordNs } from '../../src/collect/index.js';
import { mergeReports, type Report } from '../../src/report/index.js';
import { runWithReceiver } from '../notifications/helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** What a merge of one report must give back unchanged (thresholds are judged anew). */
const SECTIONS = ['load', 'ops', 'stream', 'rateLimit', 'slo', 'contractViolationTotals', 'notifications', 'asyncRuns', 'audit', 'histograms'] as const;

describe('merge of a whole run', () => {
  it('gives back every section of a run with notifications, following and the audit', async () => {
    const r = await runWithReceiver(
      {
        name: 'merge-all',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '500ms' },
        mix: [{ op: 'run', weight: 2 }, { op: 'stream', weight: 1 }, { op: 'trigger', weight: 1 }],
      },
      { service: { runMode: 'async', latency: { ttftMs: 5, itlMs: 1, jitter: 0, tokens: { min: 2, max: 4 }, runOverheadMs: 1 } }, run: { audit: true, follow: { pollIntervalMs: 15 } } },
    );
    cleanups.push(r.close);
    const report = r.outcome.report;
    for (const s of ['notifications', 'asyncRuns', 'audit'] as const) expect(report[s], s).toBeDefined();
    const merged = mergeReports([report]);
    for (const s of SECTIONS) expect(merged[s], s).toEqual(report[s]);
  });

  it('adds two shards up: counts exact, percentiles from the merged histograms', () => {
    const a = shard(1, 100);
    const b = shard(2, 50);
    const m = mergeReports([a, b]);
    expect(m.iterations?.started).toBe(150);
    expect(m.iterations?.failed).toBe(3);
    expect(m.iterations?.errors).toEqual([{ message: 'boom', count: 3 }]);
    expect(m.checks).toEqual({ ok: { passes: 147, fails: 3 } });
    expect(m.notifications?.received).toBe(15);
    expect(m.scenarios?.pro?.ops.listFlows?.count).toBe(150);
    expect(m.load.started).toBe(150);
    // Shards run side by side: the rate is over the union of their schedules (1 s, the second
    // starting 1 ms after the first), never the sum of windows.
    expect(m.load.achievedRatePerS).toBe(Math.round((150 / 1.001) * 1000) / 1000);
  });
});

/** A serialised histogram of `n` values of 1 ms. */
function latencies(n: number): string {
  const h = createLatencyHistogram();
  for (let i = 0; i < n; i++) recordNs(h, 1e6);
  return encodeHistogram(h);
}

/** A hand-made shard report; only the sections merge reads matter. */
function shard(i: number, n: number): Report {
  const failed = i;
  const pct = { p50: 1, p90: 2, p95: 2, p99: 3, p999: 3, max: 3, mean: 1.5, count: n };
  const none = { p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, count: 0 };
  const section = {
    load: { executor: 'constant-arrival-rate', targetRatePerS: n, achievedRatePerS: n, started: n, dropped: 0, scheduleLagMs: pct, scheduleS: 1 },
    ops: { listFlows: { count: n, good: n, bad: 0, excluded: 0, statuses: { '200': n }, errors: {}, latencyMs: pct } },
    // No streams: no stream timings either (a timing with values would need its histogram).
    stream: { count: 0, completed: 0, incomplete: 0, ttfbMs: none, timeToStartMs: none, ttftMs: none, itlMs: none, tpotMs: none, timeToEndMs: none, tokensPerS: none, tokens: 0, tokenCountMismatches: 0, unknownEvents: 0, malformedEvents: 0 },
    rateLimit: { advertisedLimit: null, resetSemantics: 'unknown', responses: n, responses429: 0, expected429: 0, premature429: 0, headerViolations: {}, windows: [], windowsDropped: 0, first429: null, recoveryMs: null },
    slo: { objective: 0.999, good: n, bad: 0, excluded: 0, availability: 1, errorRatio: 0, errorBudgetConsumed: 0, burnRate: 0, allowedBadEvents: 0 },
    contractViolationTotals: { total: 0, droppedDistinct: 0, droppedCount: 0 },
    histograms: { 'listFlows.latency': latencies(n) },
  };
  return {
    schema: 'flowgauge/report@1',
    scenario: 'merge-shards',
    interrupted: false,
    target: { baseUrl: 'http://127.0.0.1:1/v1', embedded: true },
    startedAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    endedAt: new Date(Date.UTC(2026, 0, 1) + 1500).toISOString(),
    durationS: 1.5,
    ...section,
    ops: {},
    thresholds: [],
    passed: true,
    contractViolations: [],
    sliceMs: 1000,
    slices: [],
    iterations: { started: n, completed: n - failed, failed, interrupted: 0, dropped: 0, durationMs: pct, errors: [{ message: 'boom', count: failed }], otherErrors: 0 },
    checks: { ok: { passes: n - failed, fails: failed } },
    scenarios: { pro: { ...section } } as unknown as Report['scenarios'],
    notifications: { received: i * 5, graceMs: 5000 } as unknown as Report['notifications'],
  } as Report;
}
