/**
 * The status as `slo status` prints it for a window larger than its data: timeline cells sized
 * to the records (not 90 fixed cells of which one holds them all), one warning per finding
 * naming the series, and a certificate under the probe's minimum said aloud.
 */
import { describe, expect, it } from 'vitest';
import { buildSloStatus, renderStatusText, TIMELINE_BUCKETS } from '../../src/probe/index.js';
import { record, rounds } from './helpers.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const DAY_MS = 86_400_000;

describe('slo status over a window larger than its data', () => {
  it('sizes the timeline cells to the records, from the first one to the end of the window', () => {
    const recs = rounds(NOW - 3 * 3_600_000, 180, ['listFlows', 'run']);
    const s = buildSloStatus(recs, { nowMs: NOW, windowMs: 30 * DAY_MS });
    const t = s.timeline;
    // The window's fine buckets are 15 min; 3 hours of records fill 12 of them.
    expect(t.bucketMs).toBe(15 * 60_000);
    expect(t.startMs).toBe(NOW - 3 * 3_600_000);
    expect(t.windowStartMs).toBe(NOW - 30 * DAY_MS);
    for (const r of t.rows) {
      expect(r.cells).toHaveLength(12);
      expect(r.cells.every((c) => c.outcome === 'up')).toBe(true);
    }
    expect(t.budgetBurned).toHaveLength(12);
  });

  it('keeps 90 cells over the whole window when the records fill it, and when there are none', () => {
    const full = buildSloStatus(rounds(NOW - 3 * 3_600_000, 180, ['run']), { nowMs: NOW, windowMs: 3 * 3_600_000 });
    expect(full.timeline.rows[0]?.cells).toHaveLength(TIMELINE_BUCKETS);
    expect(full.timeline.bucketMs).toBe(2 * 60_000);
    const empty = buildSloStatus([], { nowMs: NOW, windowMs: 30 * DAY_MS });
    expect(empty.timeline.startMs).toBe(NOW - 30 * DAY_MS);
    expect(empty.timeline.rows).toHaveLength(1);
    expect(empty.timeline.rows[0]?.cells).toHaveLength(TIMELINE_BUCKETS);
  });

  it('says late records once, naming every series they concern', () => {
    const recs = rounds(NOW - 3_600_000, 60, ['listFlows', 'run', 'stream']).map((r) => ({ ...r, intervalMs: 30_000 }));
    const s = buildSloStatus(recs, { nowMs: NOW, windowMs: 3_600_000 });
    const late = s.warnings.filter((w) => w.includes('further apart'));
    expect(late).toHaveLength(1);
    expect(late[0]).toMatch(/in overall \(59 records, 29\.50 min\), listFlows \(59 records, 29\.50 min\), run \(59 records, 29\.50 min\) and stream \(59 records, 29\.50 min\): /);
  });

  it('warns of a certificate under the minimum, once, naming the checks that saw it', () => {
    const tls = { version: 'TLSv1.3', versionOk: true, certValidTo: new Date(NOW + 2 * DAY_MS).toISOString(), certDaysLeft: 2, authorized: true, certMinDays: 14 };
    const recs = ['listFlows', 'run'].map((check) =>
      record({ timeMs: NOW - 60_000, check: check as 'listFlows' | 'run', success: true, error: null, status: 200, tls: { ...tls, certOk: false } }),
    );
    const s = buildSloStatus(recs, { nowMs: NOW, windowMs: 3_600_000 });
    const cert = s.warnings.filter((w) => w.includes('certificate'));
    expect(cert).toEqual([
      `the certificate seen by listFlows and run expires in 2.0 days (${tls.certValidTo}), under the probe's 14-day minimum: renew it (uptime is not affected: the answers were good; a finding, not downtime, until it is renewed or expires)`,
    ]);
    expect(renderStatusText(s)).toMatch(/certificate expires in 2\.0 days \(under the 14-day minimum\)/);
  });
});
