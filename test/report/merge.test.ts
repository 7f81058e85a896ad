import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { decodeHistogram, emptyPct, toPct } from '../../src/collect/histogram.js';
import { FlowgaugeError } from '../../src/core/errors.js';
import type { RequestSample } from '../../src/core/types.js';
import { createRandom } from '../../src/load/prng.js';
import { mergeReports } from '../../src/report/merge.js';
import { evaluateReportThresholds } from '../../src/report/metrics.js';
import { buildReport } from '../../src/report/build-report.js';
import type { Report } from '../../src/report/model.js';
import { parseThreshold } from '../../src/slo/thresholds.js';
import { MS, S, rl, sample, streamTiming } from '../collect/samples.js';

const WALL0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** Deterministic traffic: runs with heavy-tailed latency (some 503s), listFlows, streams. */
function traffic(n: number, seed: number): RequestSample[] {
  const rnd = createRandom(seed);
  const out: RequestSample[] = [];
  for (let i = 0; i < n; i++) {
    const t = i * 20 * MS;
    const kind = i % 5;
    const lat = Math.round((1 + 300 * rnd() ** 4) * MS);
    if (kind === 0) {
      const tokens = Array.from({ length: 4 + (i % 3) }, (_, k) => (30 + k * (5 + rnd() * 10)) * MS);
      const end = (tokens[tokens.length - 1] as number) + 2 * MS;
      out.push(sample({ op: 'stream', intendedNs: t, startNs: t, headersNs: t + MS, endNs: t + end, stream: streamTiming(t, { start: 2 * MS, tokens, end, usage: tokens.length }) }));
    } else if (kind === 1) {
      out.push(sample({ op: 'listFlows', intendedNs: t, startNs: t, headersNs: t + lat, endNs: t + lat }));
    } else {
      const bad = rnd() < 0.02;
      out.push(
        sample({
          intendedNs: t,
          startNs: t,
          // Phases: queued 0–6 ms, a new connection every 50th request.
          sentNs: t + (i % 7) * MS,
          connectNs: i % 50 === 2 ? 2 * MS : 0,
          tlsNs: i % 50 === 2 ? 3 * MS : 0,
          headersNs: t + (i % 7) * MS + lat,
          endNs: t + (i % 7) * MS + lat + (i % 3) * MS,
          status: bad ? 503 : 200,
          errorCode: bad ? 'SERVICE_UNAVAILABLE' : undefined,
          runStatus: bad ? undefined : 'completed',
          violations: i % 97 === 0 ? [{ op: 'run', path: 'usage.total_tokens', expected: 'integer', got: 'string' }] : [],
        }),
      );
    }
  }
  return out;
}

function reportOf(samples: readonly RequestSample[], o: { wallStartMs?: number; scenario?: string; targetRatePerS?: number } = {}): Report {
  const wall = o.wallStartMs ?? WALL0;
  const c = createCollectors({ runStartNs: 0, runStartWallMs: wall });
  for (const s of samples) c.observe(s);
  const lastNs = samples.reduce((m, s) => Math.max(m, s.endNs), 0);
  return buildReport({
    scenario: o.scenario ?? 'mixed',
    interrupted: false,
    target: { baseUrl: 'http://127.0.0.1:4000/v1', embedded: true },
    startedAtMs: wall,
    endedAtMs: wall + Math.ceil(lastNs / MS),
    load: { executor: 'constant-arrival-rate', targetRatePerS: o.targetRatePerS ?? 10, started: samples.length, dropped: 1, scheduleLagMs: emptyPct() },
    snapshot: c.snapshot(lastNs + 60 * S),
    thresholds: [],
  });
}

/** Round-robin split into `n` shards, like the executors' every-n-th arrival. */
function split<T>(all: readonly T[], n: number): T[][] {
  return Array.from({ length: n }, (_, i) => all.filter((_, k) => k % n === i));
}

describe('mergeReports', () => {
  it('merges percentiles exactly: equal to one histogram that saw every sample', () => {
    const all = traffic(3000, 7);
    const whole = reportOf(all);
    const merged = mergeReports(split(all, 3).map((s) => reportOf(s)));
    for (const op of ['run', 'listFlows', 'stream'] as const) {
      expect(merged.ops[op]?.latencyMs, op).toEqual(whole.ops[op]?.latencyMs);
    }
    expect(merged.ops.run?.phases, 'run phases').toEqual(whole.ops.run?.phases);
    expect(whole.ops.run?.phases?.tlsMs.max).toBeGreaterThan(0);
    expect(whole.ops.listFlows?.phases, 'no sent moment, no phases').toBeUndefined();
    expect(merged.stream.ttftMs).toEqual(whole.stream.ttftMs);
    expect(merged.stream.itlMs).toEqual(whole.stream.itlMs);
    expect(merged.stream.tokensPerS).toEqual(whole.stream.tokensPerS);
    // The merged serialised histograms hold the same counts as the whole run's.
    for (const key of Object.keys(whole.histograms)) {
      expect(toPct(decodeHistogram(merged.histograms[key] as string)), key).toEqual(toPct(decodeHistogram(whole.histograms[key] as string)));
    }
    // And the shards on their own do not give the whole's p99: the merge is doing real work.
    const shardP99 = split(all, 3).map((s) => reportOf(s).ops.run?.latencyMs.p99);
    expect(shardP99.some((p) => p !== whole.ops.run?.latencyMs.p99)).toBe(true);
  });

  it('adds up counts, statuses, errors, SLI events, streams, violations and load', () => {
    const all = traffic(1500, 3);
    const whole = reportOf(all);
    const shards = split(all, 3).map((s) => reportOf(s, { targetRatePerS: 10 / 3 }));
    const merged = mergeReports(shards);
    for (const op of ['run', 'listFlows', 'stream'] as const) {
      const w = whole.ops[op];
      const m = merged.ops[op];
      expect(m && { count: m.count, good: m.good, bad: m.bad, statuses: m.statuses, errors: m.errors }).toEqual(
        w && { count: w.count, good: w.good, bad: w.bad, statuses: w.statuses, errors: w.errors },
      );
    }
    expect(merged.ops.run?.bad).toBeGreaterThan(0);
    expect({ good: merged.slo.good, bad: merged.slo.bad, availability: merged.slo.availability }).toEqual({
      good: whole.slo.good,
      bad: whole.slo.bad,
      availability: whole.slo.availability,
    });
    expect(merged.slo.errorBudgetConsumed).toBe(whole.slo.errorBudgetConsumed);
    expect({ count: merged.stream.count, completed: merged.stream.completed, tokens: merged.stream.tokens }).toEqual({
      count: whole.stream.count,
      completed: whole.stream.completed,
      tokens: whole.stream.tokens,
    });
    expect(merged.contractViolations).toEqual(whole.contractViolations);
    expect(merged.contractViolationTotals.total).toBe(whole.contractViolationTotals.total);
    expect(merged.load.started).toBe(1500);
    expect(merged.load.dropped).toBe(3);
    expect(merged.load.targetRatePerS).toBeCloseTo(10, 3);
  });

  it('merges slices exactly when shards start together, and by wall time when they do not', () => {
    const all = traffic(1000, 11);
    const whole = reportOf(all);
    const merged = mergeReports(split(all, 2).map((s) => reportOf(s)));
    expect(merged.slices.length).toBe(whole.slices.length);
    merged.slices.forEach((s, i) => {
      const w = whole.slices[i];
      expect(s.requests).toBe(w?.requests);
      for (const [op, v] of Object.entries(s.ops)) {
        const wv = w?.ops[op as keyof typeof w.ops];
        expect(toPct(decodeHistogram(v.latency)), `slice ${i} ${op}`).toEqual(toPct(decodeHistogram(wv?.latency as string)));
      }
    });

    // The second shard started 3.2 s later: its slice 0 is the merged run's slice 3.
    const a = reportOf(traffic(100, 1));
    const b = reportOf(traffic(100, 2), { wallStartMs: WALL0 + 3200 });
    const m = mergeReports([b, a]);
    expect(m.startedAt).toBe(a.startedAt);
    expect(m.endedAt).toBe(b.endedAt);
    expect(m.durationS).toBeCloseTo((Date.parse(b.endedAt) - Date.parse(a.startedAt)) / 1000, 3);
    expect(m.slices[3]?.requests).toBe((a.slices[3]?.requests ?? 0) + (b.slices[0]?.requests ?? 0));
    expect(m.slices.reduce((n, s) => n + s.requests, 0)).toBe(200);
    // a ended before b began: the rate is over the time either ran, not the gap between them.
    expect(Date.parse(a.endedAt)).toBeLessThan(Date.parse(b.startedAt));
    expect(m.load.achievedRatePerS).toBeCloseTo(200 / (a.durationS + b.durationS), 2);
  });

  it('re-evaluates the shards’ thresholds on the merged report', () => {
    const judge = (r: Report): Report => {
      const parsed = [parseThreshold('availability', '>= 99%'), parseThreshold('run.latency.p99', '< 1s')].map((p) => {
        if (!p.ok) throw new Error(p.error);
        return p.threshold;
      });
      return evaluateReportThresholds(r, parsed);
    };
    // Shard A has no failures; shard B has 3 bad in 20: the whole fails availability.
    const good = Array.from({ length: 280 }, (_, i) => sample({ intendedNs: i * 10 * MS, endNs: i * 10 * MS + 5 * MS }));
    const bad = Array.from({ length: 20 }, (_, i) =>
      sample({ intendedNs: i * 10 * MS, endNs: i * 10 * MS + 5 * MS, ...(i < 3 ? { status: 503, errorCode: 'SERVICE_UNAVAILABLE' as const } : {}) }),
    );
    const a = judge(reportOf(good));
    const b = judge(reportOf(bad));
    expect(a.passed).toBe(true);
    const merged = mergeReports([a, b]);
    const avail = merged.thresholds.find((t) => t.metric === 'availability');
    expect(avail?.observed).toBeCloseTo(297 / 300, 9);
    expect(avail?.passed).toBe(true);
    expect(merged.thresholds.map((t) => t.metric)).toEqual(['availability', 'run.latency.p99']);
    expect(merged.passed).toBe(true);
    // A threshold the shards used that merged evidence breaks.
    const strict = evaluateReportThresholds(b, [(parseThreshold('availability', '>= 99.5%') as { ok: true; threshold: never }).threshold]);
    const m2 = mergeReports([{ ...a, thresholds: strict.thresholds }, strict]);
    expect(m2.thresholds).toHaveLength(1);
    expect(m2.thresholds[0]?.passed).toBe(false);
    expect(m2.passed).toBe(false);
  });

  it('adds rate-limit findings: 429s summed, limit the max, epoch windows combined by reset', () => {
    const epoch = 1_767_268_860;
    const mk = (limit: number, accepted: number, rejected: number, wall: number): Report => {
      const s: RequestSample[] = [];
      for (let i = 0; i < accepted + rejected; i++) {
        const t = i * MS;
        const ok = i < accepted;
        s.push(sample({ intendedNs: t, startNs: t, endNs: t + MS, headersNs: t + MS, status: ok ? 200 : 429, errorCode: ok ? undefined : 'RATE_LIMITED', rateLimit: rl(limit, ok ? limit - i - 1 : 0, epoch) }));
      }
      return reportOf(s, { wallStartMs: wall });
    };
    const a = mk(100, 10, 2, WALL0);
    const b = mk(120, 5, 1, WALL0 + 10);
    // A gateway's bare 429s are summed too; a report from before the count merges as none.
    const gateway = { ...a, rateLimit: { ...a.rateLimit, headerless429: 2 } };
    const { headerless429: _absent, ...older } = b.rateLimit;
    expect(mergeReports([gateway, { ...b, rateLimit: older }]).rateLimit.headerless429).toBe(2);
    const m = mergeReports([a, b]);
    expect(m.rateLimit.headerless429).toBe(0);
    expect(m.rateLimit.responses429).toBe(3);
    expect(m.rateLimit.expected429 + m.rateLimit.premature429).toBe(3);
    expect(m.rateLimit.advertisedLimit).toBe(120);
    expect(m.rateLimit.resetSemantics).toBe('epoch-seconds');
    expect(m.rateLimit.windows).toHaveLength(1);
    expect(m.rateLimit.windows[0]).toMatchObject({ reset: String(epoch), accepted: 15, rejected: 3 });
    expect(m.rateLimit.first429?.atMs).toBeCloseTo(a.rateLimit.first429?.atMs ?? -1, 3);
  });

  it('refuses reports that do not belong together, naming them', () => {
    const a = reportOf(traffic(50, 1));
    const b = reportOf(traffic(50, 2), { scenario: 'other' });
    const err = (() => {
      try {
        mergeReports([a, b], { names: ['a.json', 'b.json'] });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(FlowgaugeError);
    expect((err as FlowgaugeError).code).toBe('FG_REPORT_INVALID');
    expect((err as Error).message).toMatch(/scenario differs \(a\.json: "mixed", b\.json: "other"\)/);
    expect(() => mergeReports([])).toThrow(/nothing to merge/);
    expect(() => mergeReports([a, { ...a, schema: 'flowgauge/report@2' as never }])).toThrow(/report 2: schema "flowgauge\/report@2"/);
    expect(() => mergeReports([a, { ...a, slo: { ...a.slo, objective: 0.99 } }])).toThrow(/SLO objective differs/);
    expect(() => mergeReports([a, { ...a, histograms: { ...a.histograms, 'run.latency': 'HISTFAAAnope' } }], { names: ['x', 'y'] })).toThrow(
      /y: histograms\["run.latency"\] is not a readable HDR histogram/,
    );
  });
});
