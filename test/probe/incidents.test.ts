import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { createIncidentTracker, detectIncidents, RTO_MS, type OutcomePoint } from '../../src/probe/index.js';

const MIN = 60_000;

/** Points one minute apart from 0, `F` failing and `S` succeeding. */
function points(pattern: string, intervalMs = MIN): OutcomePoint[] {
  return [...pattern].map((c, i) => ({ timeMs: i * intervalMs, success: c === 'S', intervalMs }));
}

describe('incidents', () => {
  it('opens after N consecutive failures, starting at the first one, and closes at the next success', () => {
    const s = detectIncidents('run', points('SFFSFFFFSS'), { failuresToOpen: 3, nowMs: 10 * MIN });
    expect(s.incidents).toHaveLength(1);
    const [i] = s.incidents;
    expect(i).toMatchObject({ check: 'run', startMs: 4 * MIN, endMs: 8 * MIN, durationMs: 4 * MIN, failures: 4, open: false, withinRto: true });
    expect(s.mttrMs).toBe(4 * MIN);
    expect(s.mttrWithinRto).toBe(true);
    expect(s.open).toBeUndefined();
  });

  it('keeps an open incident, measured to now', () => {
    const s = detectIncidents('run', points('SSFFF'), { failuresToOpen: 2, nowMs: 30 * MIN });
    expect(s.open).toMatchObject({ startMs: 2 * MIN, endMs: null, open: true, durationMs: 28 * MIN, failures: 3 });
    expect(s.mttrMs).toBeUndefined();
    expect(s.mttrWithinRto).toBeUndefined();
  });

  it('compares each incident and the mean time to recover with the 4-hour RTO', () => {
    const hour = 60 * MIN;
    // Probes every hour: a 5-hour incident breaches, a 1-hour one does not; the mean (3 h) is within.
    const s = detectIncidents('stream', points('SFFFFFSFSS', hour), { failuresToOpen: 1, nowMs: 10 * hour });
    expect(s.incidents.map((i) => [i.durationMs / hour, i.withinRto])).toEqual([
      [5, false],
      [1, true],
    ]);
    expect(s.rtoBreaches).toBe(1);
    expect(s.mttrMs).toBe(3 * hour);
    expect(s.mttrWithinRto).toBe(true);
    expect(RTO_MS).toBe(4 * hour);
    // Exactly 4 hours is not "under 4 hours".
    expect(detectIncidents('x', points('FFFFS', hour), { failuresToOpen: 1, nowMs: 5 * hour }).incidents[0]?.withinRto).toBe(false);
  });

  it('reports opening and closing as events, once each', () => {
    const t = createIncidentTracker('listFlows', { failuresToOpen: 2 });
    const events = points('FFFSF').map((p) => t.observe(p)?.kind ?? '-');
    expect(events).toEqual(['-', 'opened', '-', 'closed', '-']);
    expect(t.current(10 * MIN)).toBeUndefined();
  });

  it('finds exactly the maximal runs of at least N failures (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 80 }), fc.integer({ min: 1, max: 5 }), (oks, n) => {
        const pattern = oks.map((ok) => (ok ? 'S' : 'F')).join('');
        const expected = [...pattern.matchAll(/F+/g)].filter((m) => m[0].length >= n).map((m) => (m.index ?? 0) * MIN);
        const s = detectIncidents('c', points(pattern), { failuresToOpen: n, nowMs: pattern.length * MIN });
        expect(s.incidents.map((i) => i.startMs)).toEqual(expected);
        // Only the last run can be open, and only when the pattern ends in it.
        expect(s.incidents.filter((i) => i.open).length).toBe(expected.length > 0 && /F$/.test(pattern) && (/F+$/.exec(pattern)?.[0].length ?? 0) >= n ? 1 : 0);
      }),
    );
  });

  it('resumes inside an earlier run of failures, and keeps only the closed incidents it is told to', () => {
    const open = createIncidentTracker('run', { failuresToOpen: 3, resumeFrom: { startMs: 2 * MIN, failures: 3 } });
    expect(open.current(10 * MIN)).toMatchObject({ startMs: 2 * MIN, failures: 3, open: true });
    expect(open.observe({ timeMs: 10 * MIN, success: true, intervalMs: MIN })).toMatchObject({ kind: 'closed', incident: { startMs: 2 * MIN, durationMs: 8 * MIN } });
    // Two failures before the restart and one after: the third opens it, from the first.
    const short = createIncidentTracker('run', { failuresToOpen: 3, resumeFrom: { startMs: 2 * MIN, failures: 2 }, keepClosed: 1 });
    expect(short.current(5 * MIN)).toBeUndefined();
    expect(short.observe({ timeMs: 5 * MIN, success: false, intervalMs: MIN })).toMatchObject({ kind: 'opened', incident: { startMs: 2 * MIN, failures: 3 } });
    for (const p of points('SFFFSFFFS').map((q) => ({ ...q, timeMs: q.timeMs + 6 * MIN }))) short.observe(p);
    expect(short.closed()).toHaveLength(1);
  });

  it('refuses a threshold below one', () => {
    expect(() => createIncidentTracker('c', { failuresToOpen: 0 })).toThrow(InvalidArgumentError);
  });
});
