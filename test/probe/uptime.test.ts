import { describe, expect, it } from 'vitest';
import { computeUptime, overallSeries, seriesByCheck, uptimeBudget, type OutcomePoint } from '../../src/probe/index.js';
import { rounds } from './helpers.js';

const MIN = 60_000;
const DAY = 86_400_000;

function pts(pattern: string, intervalMs = MIN, startMs = 0): OutcomePoint[] {
  return [...pattern].map((c, i) => ({ timeMs: startMs + i * intervalMs, success: c === 'S', intervalMs }));
}

describe('uptime', () => {
  it('counts probes and minutes: each outcome stands for its interval', () => {
    const u = computeUptime(pts('SSSSFSSSSS'), { startMs: 0, endMs: 10 * MIN });
    expect(u).toMatchObject({ probes: 10, successes: 9, observedMs: 10 * MIN, upMs: 9 * MIN, downMs: MIN });
    expect(u.probeUptime).toBeCloseTo(0.9, 12);
    expect(u.timeUptime).toBeCloseTo(0.9, 12);
  });

  it('differs from probe-based uptime when intervals differ, and leaves gaps unobserved', () => {
    // A 1-minute success, then (after the prober was down 58 minutes) a failure standing for 10 minutes.
    const points: OutcomePoint[] = [
      { timeMs: 0, success: true, intervalMs: MIN },
      { timeMs: 59 * MIN, success: false, intervalMs: 10 * MIN },
    ];
    const u = computeUptime(points, { startMs: 0, endMs: 120 * MIN });
    expect(u.probeUptime).toBe(0.5);
    expect(u.observedMs).toBe(11 * MIN);
    expect(u.timeUptime).toBeCloseTo(1 / 11, 12);
  });

  it('clips spans to the window and to the next probe', () => {
    const points = pts('FSF', 10 * MIN, 0);
    // Window [5, 25) min: the first failure covers 5 of its minutes, the success 10, the last failure 5.
    const u = computeUptime(points, { startMs: 5 * MIN, endMs: 25 * MIN });
    expect(u).toMatchObject({ probes: 2, upMs: 10 * MIN, downMs: 10 * MIN });
    // A probe sooner than its interval cuts the previous span short.
    const early = computeUptime(
      [
        { timeMs: 0, success: false, intervalMs: 10 * MIN },
        { timeMs: 2 * MIN, success: true, intervalMs: 10 * MIN },
      ],
      { startMs: 0, endMs: 12 * MIN },
    );
    expect(early).toMatchObject({ downMs: 2 * MIN, upMs: 10 * MIN });
  });

  it('has no uptime without probes', () => {
    const u = computeUptime([], { startMs: 0, endMs: MIN });
    expect(u.probeUptime).toBeUndefined();
    expect(u.timeUptime).toBeUndefined();
    const b = uptimeBudget(u, 0.999, 30 * DAY);
    expect(b.withinObjective).toBeUndefined();
    expect(b.burnRate).toBeUndefined();
  });

  it('spends the 43.2-minute budget of 99.9 % over 30 days', () => {
    // 1000 one-minute probes, 1 failed: exactly 99.9 %, burn rate 1.
    const pattern = `F${'S'.repeat(999)}`;
    const u = computeUptime(pts(pattern), { startMs: 0, endMs: 30 * DAY });
    const b = uptimeBudget(u, 0.999, 30 * DAY);
    expect(b).toMatchObject({ allowedDowntimeMinutes: 43.2, downMinutes: 1, budgetLeftMinutes: 42.2, burnRate: 1, withinObjective: true });
    expect(b.budgetConsumed).toBeCloseTo(1 / 43.2, 6);
    // Two failures: 99.8 %, burning twice as fast as allowed.
    const worse = uptimeBudget(computeUptime(pts(`FF${'S'.repeat(998)}`), { startMs: 0, endMs: 30 * DAY }), 0.999, 30 * DAY);
    expect(worse).toMatchObject({ downMinutes: 2, burnRate: 2, withinObjective: false });
    // 50 minutes down overspends the budget.
    const over = uptimeBudget(computeUptime(pts(`${'F'.repeat(50)}${'S'.repeat(950)}`), { startMs: 0, endMs: 30 * DAY }), 0.999, 30 * DAY);
    expect(over.budgetLeftMinutes).toBeCloseTo(-6.8, 6);
  });
});

describe('series', () => {
  it('splits records by check and marks a round down when any check failed', () => {
    const recs = rounds(0, 4, ['listFlows', 'run'], (round, check) => (round === 1 && check === 'run') || (round === 2 && check === 'listFlows'));
    const byCheck = seriesByCheck(recs);
    expect([...byCheck.keys()]).toEqual(['listFlows', 'run']);
    expect(byCheck.get('run')?.map((p) => p.success)).toEqual([true, false, true, true]);
    expect(overallSeries(recs).map((p) => p.success)).toEqual([true, false, false, true]);
  });
});
