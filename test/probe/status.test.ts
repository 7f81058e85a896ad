import { describe, expect, it } from 'vitest';
import { buildSloStatus, formatWindow, renderStatusHtml, renderStatusText, SLO_STATUS_SCHEMA, type CheckName, type ProbeRecord } from '../../src/probe/index.js';
import { record, rounds } from './helpers.js';

const MIN = 60_000;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 12);

/** 1000 one-minute rounds ending at NOW; `down` picks failures. */
function history(down: (round: number, check: CheckName) => boolean): ProbeRecord[] {
  return rounds(NOW - 1000 * MIN, 1000, ['listFlows', 'stream'], down);
}

describe('slo status', () => {
  it('reports uptime, budget, burn rate and incidents per check and overall (any check failing)', () => {
    // listFlows down in rounds 10–12 (an incident of 3 minutes); stream down in round 500 (a blip).
    const recs = history((r, c) => (c === 'listFlows' && r >= 10 && r <= 12) || (c === 'stream' && r === 500));
    const s = buildSloStatus(recs, { nowMs: NOW, windowMs: 30 * DAY });
    expect(s.schema).toBe(SLO_STATUS_SCHEMA);
    expect(s.overallDefinition).toBe('any-check-failing');
    expect(s.window).toEqual({ start: new Date(NOW - 30 * DAY).toISOString(), end: new Date(NOW).toISOString(), days: 30 });
    const [listFlows, stream] = s.checks;
    expect(listFlows).toMatchObject({ name: 'listFlows', probes: 1000, successes: 997, downMinutes: 3, observedMinutes: 1000, withinObjective: false });
    expect(listFlows?.timeUptime).toBeCloseTo(0.997, 12);
    expect(listFlows?.burnRate).toBeCloseTo(3, 9);
    expect(listFlows?.incidents).toEqual([
      { start: new Date(NOW - 990 * MIN).toISOString(), end: new Date(NOW - 987 * MIN).toISOString(), durationMinutes: 3, failures: 3, open: false, withinRto: true },
    ]);
    expect(listFlows?.mttrMinutes).toBe(3);
    expect(stream).toMatchObject({ downMinutes: 1, incidents: [], mttrMinutes: null, withinObjective: true, burnRate: 1 });
    // Overall: 4 rounds had a failing check; probe-based overall counts rounds, so it is 996/1000.
    expect(s.overall).toMatchObject({ name: 'overall', probes: 1000, successes: 996, downMinutes: 4, allowedDowntimeMinutes: 43.2, budgetLeftMinutes: 39.2 });
    expect(s.overall.incidents).toHaveLength(1);
    expect(s.withinObjective).toBe(false);
    expect(s.history.records).toBe(2000);
    // The JSON form round-trips with nulls, never undefined.
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('is within objective at 99.9 % and not without data', () => {
    const ok = buildSloStatus(history((r, c) => c === 'stream' && r === 7), { nowMs: NOW, windowMs: 30 * DAY });
    expect(ok.withinObjective).toBe(true);
    expect(ok.overall.timeUptime).toBeCloseTo(0.999, 12);
    const none = buildSloStatus([], { nowMs: NOW, windowMs: 30 * DAY });
    expect(none.withinObjective).toBe(false);
    expect(none.overall).toMatchObject({ probes: 0, timeUptime: null, withinObjective: null, burnRate: null, budgetLeftMinutes: 43.2 });
    expect(renderStatusText(none)).toMatch(/No probe records in the window/);
  });

  it('keeps incidents overlapping the window and reports an open one as ongoing', () => {
    const recs = [
      // An incident long before the window: not reported.
      ...[0, 1, 2, 3].map((i) => record({ timeMs: NOW - 3 * DAY + i * MIN, round: i, success: i === 3 })),
      // One that started before the window start and ended inside it: reported.
      ...[0, 1, 2, 3].map((i) => record({ timeMs: NOW - DAY - 2 * MIN + i * MIN, round: 10 + i, success: i === 3 })),
      // One still open now, 5 hours long: beyond the RTO.
      ...[0, 1, 2].map((i) => record({ timeMs: NOW - 5 * 60 * MIN + i * MIN, round: 20 + i, success: false })),
    ];
    const s = buildSloStatus(recs, { nowMs: NOW, windowMs: DAY });
    const inc = s.checks[0]?.incidents ?? [];
    expect(inc.map((i) => [i.open, i.withinRto, i.durationMinutes])).toEqual([
      [false, true, 3],
      [true, false, 300],
    ]);
    expect(s.checks[0]?.rtoBreaches).toBe(1);
    expect(renderStatusText(s)).toMatch(/ongoing .*BREACHES the 4h RTO/);
  });

  it('renders text with every series, verdicts and TLS findings', () => {
    const tls = { version: 'TLSv1.2', versionOk: false, certValidTo: '2026-12-01T00:00:00.000Z', certDaysLeft: 8.5, authorized: true };
    const recs = history((r, c) => c === 'listFlows' && r < 3).map((r) => ({ ...r, tls }));
    const text = renderStatusText(buildSloStatus(recs, { nowMs: NOW, windowMs: 30 * DAY }));
    expect(text).toMatch(/^SLO status over 30 days/);
    expect(text).toMatch(/overall\s+1000\s+99\.700 %\s+99\.700 %\s+3\.00\s+40\.20\s+3\.00\s+1000\.00\s+2\.3 %\s+BREACH/);
    expect(text).toMatch(/stream\s+1000\s+100\.000 %\s+100\.000 %\s+0\.00\s+43\.20\s+0\.00\s+1000\.00\s+2\.3 %\s+OK/);
    // BREACH beside 40.20 min left is explained, and the thin coverage is said.
    expect(text).toContain('The verdict judges uptime over the observed time (1000.00 of 43200.00 min, 2.3 %)');
    expect(text).toContain('WARNING: the records cover 2.3 % of the window');
    expect(text).toContain('TLSv1.2 (below the TLSv1.3 target), certificate expires in 8.5 days');
    expect(text).toContain('OBJECTIVE MISSED');
    expect([30, 1, 0.25, 1 / 48].map(formatWindow)).toEqual(['30 days', '1 day', '6 hours', '30 minutes']);
  });

  it('renders a self-contained HTML page with escaped text', () => {
    const recs = history(() => false).map((r) => ({ ...r, time: r.time }));
    const s = buildSloStatus(recs, { nowMs: NOW, windowMs: 30 * DAY });
    const html = renderStatusHtml(s);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('Operational: uptime 100.000 % meets the 99.900 % objective');
    expect(html).toContain('<td>listFlows</td>');
    // Nothing loaded from elsewhere, nothing executed.
    expect(html).not.toMatch(/<script|<link|src=|href=|@import|url\(/i);
    const hostile = buildSloStatus([record({ timeMs: NOW - MIN, check: 'run' })], { nowMs: NOW, windowMs: DAY });
    const page = renderStatusHtml({ ...hostile, checks: [{ ...(hostile.checks[0] as (typeof hostile.checks)[number]), name: '<img onerror=x>' }] });
    expect(page).toContain('&lt;img onerror=x&gt;');
    expect(page).not.toContain('<img');
  });
});
