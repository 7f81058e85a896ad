/**
 * The latency of the 429 answers: kept apart from the served answers' latency, projected into
 * report.json `rateLimit.latencyMs`, merged exactly from `histograms["ratelimit.latency"]`, and
 * read by the threshold key `ratelimit.latency.<stat>`.
 */
import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { emptyPct } from '../../src/collect/histogram.js';
import type { RequestSample } from '../../src/core/types.js';
import { buildReport } from '../../src/report/build-report.js';
import { mergeReports } from '../../src/report/merge.js';
import { reportMetric } from '../../src/report/metrics.js';
import type { Report } from '../../src/report/model.js';
import { reportProblems } from '../../src/report/read.js';
import { parseThreshold } from '../../src/slo/thresholds.js';
import { MS, S, rl, sample } from '../collect/samples.js';

const WALL0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** 300 runs, 10 per 100 ms: of each 10, 4 served in 80–119 ms, 6 refused in 1–6 ms. */
function samples(): RequestSample[] {
  const out: RequestSample[] = [];
  for (let i = 0; i < 300; i++) {
    const t = i * 10 * MS;
    const refused = i % 10 >= 4;
    const lat = (refused ? 1 + (i % 6) : 80 + (i % 40)) * MS;
    out.push(
      sample({
        intendedNs: t,
        startNs: t,
        headersNs: t + lat,
        endNs: t + lat,
        status: refused ? 429 : 200,
        errorCode: refused ? 'RATE_LIMITED' : undefined,
        runStatus: refused ? undefined : 'completed',
        rateLimit: rl(4, refused ? 0 : 3 - (i % 10), 1),
      }),
    );
  }
  return out;
}

function reportOf(list: readonly RequestSample[]): Report {
  const c = createCollectors({ runStartNs: 0, runStartWallMs: WALL0 });
  for (const s of list) c.observe(s);
  const lastNs = list.reduce((m, s) => Math.max(m, s.endNs), 0);
  return buildReport({
    scenario: 'limited',
    interrupted: false,
    target: { baseUrl: 'http://127.0.0.1:4000/v1', embedded: true },
    startedAtMs: WALL0,
    endedAtMs: WALL0 + Math.ceil(lastNs / MS),
    load: { executor: 'constant-arrival-rate', targetRatePerS: 100, started: list.length, dropped: 0, scheduleLagMs: emptyPct() },
    snapshot: c.snapshot(lastNs + 60 * S),
    thresholds: [],
  });
}

describe('rateLimit.latencyMs', () => {
  const whole = reportOf(samples());

  it('holds the 429s, which ops.<op>.latencyMs leaves out; the op counts them still', () => {
    const run = whole.ops.run!;
    expect(run.count).toBe(300);
    expect(run.statuses).toEqual({ '200': 120, '429': 180 });
    expect(run.latencyMs.count).toBe(120);
    expect(run.latencyMs.p50).toBeGreaterThanOrEqual(80);
    expect(whole.rateLimit.responses429).toBe(180);
    expect(whole.rateLimit.latencyMs?.count).toBe(180);
    expect(whole.rateLimit.latencyMs?.max).toBeLessThan(7);
    expect(reportProblems(JSON.parse(JSON.stringify(whole)))).toEqual([]);
  });

  it('merges exactly from the shards histograms, and a single report merges back to itself', () => {
    const all = samples();
    const shards = [0, 1, 2].map((k) => reportOf(all.filter((_, i) => i % 3 === k)));
    const merged = mergeReports(shards);
    expect(merged.rateLimit.latencyMs).toEqual(whole.rateLimit.latencyMs);
    expect(merged.ops.run?.latencyMs).toEqual(whole.ops.run?.latencyMs);
    expect(mergeReports([whole]).rateLimit).toEqual(whole.rateLimit);
  });

  it('refuses to merge a shard that reports 429 latency without its histogram', () => {
    const broken = structuredClone(whole) as { histograms: Record<string, string> } & Report;
    delete broken.histograms['ratelimit.latency'];
    expect(() => mergeReports([whole, broken], { names: ['a.json', 'b.json'] })).toThrow(/b\.json: rateLimit\.latencyMs has 180 answers but no histograms\["ratelimit\.latency"\]/);
  });

  it('is empty, with no histogram, when nothing was refused', () => {
    const r = reportOf(samples().filter((s) => s.status !== 429));
    expect(r.rateLimit.latencyMs?.count).toBe(0);
    expect(r.histograms['ratelimit.latency']).toBeUndefined();
    expect(mergeReports([r, r]).rateLimit.latencyMs?.count).toBe(0);
  });

  it('is the threshold key ratelimit.latency.<stat>, in ms (count as a count)', () => {
    expect(parseThreshold('ratelimit.latency.p99', '< 50ms')).toMatchObject({ ok: true, threshold: { metric: { kind: 'ratelimitLatency', stat: 'p99' }, unit: 'ms', value: 50 } });
    expect(parseThreshold('ratelimit.latency.count', '> 0')).toMatchObject({ ok: true, threshold: { unit: 'count' } });
    expect(reportMetric(whole, 'ratelimit.latency.p99')).toBe(whole.rateLimit.latencyMs?.p99);
    expect(reportMetric(whole, 'ratelimit.latency.count')).toBe(180);
    expect(reportMetric(reportOf(samples().filter((s) => s.status !== 429)), 'ratelimit.latency.p50')).toBeUndefined();
  });
});
