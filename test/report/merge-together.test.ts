/**
 * Shards that did not start together (issue 28, item 6): two shards at 2/s each, the second
 * started 6 s after the first. The truth, second by second, is 2 2 2 2 2 2 4 4 4 4 2 2 2 2 2 2:
 * 40 starts over the 16 s when at least one shard ran. The merge must say 2.5/s (not the 4/s of
 * adding the shards' rates), span the union, and warn that the shards were not together.
 */
import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { emptyPct } from '../../src/collect/histogram.js';
import { createFakeClock } from '../../src/core/clock.js';
import { buildReport } from '../../src/report/build-report.js';
import { mergeReports } from '../../src/report/merge.js';
import { evaluateReportThresholds } from '../../src/report/metrics.js';
import type { Report } from '../../src/report/model.js';
import { renderSummary } from '../../src/report/summary.js';
import { parseThreshold, type ParsedThreshold } from '../../src/slo/thresholds.js';
import { MS, S, sample } from '../collect/samples.js';

const WALL0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** The defaults a scenario without thresholds is judged on. */
const DEFAULTS: ParsedThreshold[] = [parseThreshold('availability', '>=99.9%'), parseThreshold('ratelimit.premature429', '==0')].map((p) => {
  if (!p.ok) throw new Error(p.error);
  return { ...p.threshold, implicit: true };
});

/**
 * One shard's report, as the engine builds it on a fake clock: `ratePerS` listFlows a second for
 * `seconds`, its clock started at `wallStartMs` (+ a fraction of a ms, as a real clock's is), a
 * short drain after the schedule.
 */
function shard(wallStartMs: number, o: { fractionMs?: number; drainMs?: number } = {}): Report {
  const ratePerS = 2;
  const seconds = 10;
  const clock = createFakeClock({ startNs: 5 * S, wallStartMs: wallStartMs + (o.fractionMs ?? 0.37) });
  const runStartNs = clock.nowNs();
  const startedAtMs = clock.wallMs();
  const c = createCollectors({ runStartNs, runStartWallMs: startedAtMs });
  const n = ratePerS * seconds;
  for (let i = 0; i < n; i++) {
    const t = runStartNs + (i * S) / ratePerS;
    clock.advanceTo(t + 4 * MS);
    c.observe(sample({ op: 'listFlows', intendedNs: t, startNs: t, headersNs: t + 4 * MS, endNs: t + 4 * MS }));
  }
  clock.advanceTo(runStartNs + seconds * S);
  const scheduleS = (clock.nowNs() - runStartNs) / S;
  clock.advance((o.drainMs ?? 30) * MS);
  const report = buildReport({
    scenario: 'together',
    interrupted: false,
    target: { baseUrl: 'http://127.0.0.1:4000/v1', embedded: false },
    startedAtMs,
    endedAtMs: clock.wallMs(),
    load: { executor: 'constant-arrival-rate', targetRatePerS: ratePerS, started: n, dropped: 0, scheduleLagMs: emptyPct(), scheduleS },
    snapshot: c.snapshot(clock.nowNs()),
    thresholds: [],
  });
  return evaluateReportThresholds(report, DEFAULTS);
}

describe('merging shards that did not start together', () => {
  it('computes the achieved rate over the union of the shards’ active time, not as the sum of their rates', () => {
    const a = shard(WALL0);
    const b = shard(WALL0 + 6000);
    expect(a.load.achievedRatePerS).toBe(2);
    const m = mergeReports([a, b], { names: ['one.json', 'two.json'] });
    // Per second on the wall clock: 2 2 2 2 2 2 4 4 4 4 2 2 2 2 2 2.
    expect(m.slices.map((s) => s.requests)).toEqual([2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2]);
    expect(m.load.started).toBe(40);
    expect(m.load.achievedRatePerS).toBe(2.5);
    expect(m.load.achievedRatePerS).toBe(m.slices.reduce((n, s) => n + s.requests, 0) / m.slices.length);
    expect(m.load.scheduleS).toBe(16);
    // durationS: first start to last end.
    expect(m.durationS).toBe(16.03);
    expect(m.startedAt).toBe(a.startedAt);
    expect(m.endedAt).toBe(b.endedAt);
    const summary = renderSummary(m);
    expect(summary).toMatch(/^flowgauge together: PASS in 16\.03 s, 40 started, 0 dropped, 2\.5\/s$/m);
    expect(summary).not.toMatch(/ 4\/s/);
  });

  it('warns SHARDS_NOT_TOGETHER, naming the spread, when starts differ by more than a second', () => {
    const m = mergeReports([shard(WALL0 + 6000), shard(WALL0)], { names: ['two.json', 'one.json'] });
    const w = m.warnings?.find((x) => x.code === 'SHARDS_NOT_TOGETHER');
    expect(w?.message).toMatch(/^the 2 shards started 6\.0 s apart \(one\.json at 2026-01-01T12:00:00\.000Z, two\.json at 2026-01-01T12:00:06\.000Z\)/);
    expect(w?.message).toContain('--start-at');
    expect(renderSummary(m)).toContain('WARNING SHARDS_NOT_TOGETHER: the 2 shards started 6.0 s apart');
    // Within a second they ran together: no warning, and the rate is the sum over one window.
    const near = mergeReports([shard(WALL0), shard(WALL0 + 900)]);
    expect(near.warnings).toBeUndefined();
    expect(near.load.achievedRatePerS).toBeCloseTo(40 / 10.9, 3);
    const together = mergeReports([shard(WALL0), shard(WALL0)]);
    expect(together.load.achievedRatePerS).toBe(4);
  });

  it('a gap between shards is no one’s active time', () => {
    const m = mergeReports([shard(WALL0), shard(WALL0 + 30_000)]);
    expect(m.load.achievedRatePerS).toBe(2);
    expect(m.load.scheduleS).toBe(20);
    expect(m.durationS).toBe(40.03);
    expect(m.warnings?.[0]?.message).toMatch(/started 30\.0 s apart/);
  });

  it('merging one report gives it back unchanged: durationS, implicit thresholds and all', () => {
    const one = shard(WALL0, { fractionMs: 0.9, drainMs: 30.3 });
    expect(one.thresholds.every((t) => t.implicit === true)).toBe(true);
    // The wall clock's fraction of a ms is cut from startedAt and endedAt, not from durationS.
    expect(one.durationS).not.toBe((Date.parse(one.endedAt) - Date.parse(one.startedAt)) / 1000);
    expect(mergeReports([one])).toStrictEqual(one);
  });
});
