/**
 * Merging the reports of a distributed run's shards (issue 38, items 1 and 2): the merge knows
 * which shards it holds. Reports of other runs or scenarios, or the same shard twice, are
 * refused naming the files; a missing shard is named, the report marked incomplete and never a
 * pass (PARTIAL); warnings say which shards raised them, once each; a shard that joined late
 * is named with its offset and what it missed. Each shard here is built as the engine builds
 * it, on a fake clock, so every count is known: `ratePerS` listFlows a second for 10 s.
 */
import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { emptyPct } from '../../src/collect/histogram.js';
import { createFakeClock } from '../../src/core/clock.js';
import { buildReport, type BuildReportInput } from '../../src/report/build-report.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { mergeReports } from '../../src/report/merge.js';
import { evaluateReportThresholds } from '../../src/report/metrics.js';
import type { Report } from '../../src/report/model.js';
import { readReport } from '../../src/report/read.js';
import { renderSummary } from '../../src/report/summary.js';
import { parseThreshold, type ParsedThreshold } from '../../src/slo/thresholds.js';
import { MS, S, sample } from '../collect/samples.js';

const WALL0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const RATE = 2;
const SECONDS = 10;

const THRESHOLDS: ParsedThreshold[] = [parseThreshold('availability', '>=99%')].map((p) => {
  if (!p.ok) throw new Error(p.error);
  return p.threshold;
});

interface ShardOptions {
  readonly index: number;
  readonly count?: number;
  /** Default the run of every other shard here; null: none. */
  readonly runId?: string | null;
  readonly fingerprint?: string;
  /** The shard came up this long after the run's start and joined the schedule in phase. */
  readonly joinedAtS?: number;
  readonly warnings?: BuildReportInput['warnings'];
}

/**
 * Shard `index` of `count`: its share of a `RATE × count`/s schedule (RATE a second of its own,
 * at offsets phased by its index), the arrivals before `joinedAtS` missed when it joined late.
 */
function shard(o: ShardOptions): Report {
  const count = o.count ?? 2;
  const joinedMs = (o.joinedAtS ?? 0) * 1000;
  const clock = createFakeClock({ startNs: 5 * S, wallStartMs: WALL0 + joinedMs });
  const runStartNs = clock.nowNs();
  const startedAtMs = clock.wallMs();
  const c = createCollectors({ runStartNs, runStartWallMs: startedAtMs });
  const origin = runStartNs - joinedMs * MS;
  let started = 0;
  let missed = 0;
  for (let k = 0; k < RATE * SECONDS; k++) {
    const offsetNs = ((o.index - 1) * S) / (RATE * count) + (k * S) / RATE;
    if (offsetNs < joinedMs * MS) {
      missed++;
      continue;
    }
    const t = origin + offsetNs;
    clock.advanceTo(t + 4 * MS);
    c.observe(sample({ op: 'listFlows', intendedNs: t, startNs: t, headersNs: t + 4 * MS, endNs: t + 4 * MS }));
    started++;
  }
  clock.advanceTo(origin + SECONDS * S);
  const scheduleS = (clock.nowNs() - runStartNs) / S;
  clock.advance(30 * MS);
  const report = buildReport({
    scenario: 'spread',
    interrupted: false,
    target: { baseUrl: 'http://127.0.0.1:4000/v1', embedded: false },
    startedAtMs,
    endedAtMs: clock.wallMs(),
    load: { executor: 'constant-arrival-rate', targetRatePerS: RATE, started, dropped: 0, scheduleLagMs: emptyPct(), scheduleS, missed, joinedAtS: o.joinedAtS ?? 0 },
    snapshot: c.snapshot(clock.nowNs()),
    thresholds: [],
    ...(o.warnings !== undefined ? { warnings: o.warnings } : {}),
    shard: { index: o.index, count, fingerprint: o.fingerprint ?? 'f00d', ...(o.runId === null ? {} : { runId: o.runId ?? 'spread@2026-01-01T12:00:00Z' }) },
  });
  return evaluateReportThresholds(report, THRESHOLDS);
}

const merge = (reports: readonly Report[], names = reports.map((_, i) => `shard-${i + 1}.json`)): Report => mergeReports(reports, { names });

describe('a merge of shards that are all there', () => {
  it('says which shards it holds, drops each shard\'s own field, and passes on the whole', () => {
    const m = merge([shard({ index: 1 }), shard({ index: 2 })]);
    expect(m.shards).toEqual({ count: 2, present: [1, 2], missing: [], fingerprint: 'f00d', runId: 'spread@2026-01-01T12:00:00Z' });
    expect(m.shard).toBeUndefined();
    expect(m.load.started).toBe(2 * RATE * SECONDS);
    expect(m.passed).toBe(true);
    expect(m.verdict).toBe('PASS');
    expect(readReport(JSON.parse(JSON.stringify(m)))).toEqual(m);
    // In any order: the merge sorts the shards by their start, and names them by index.
    expect(merge([shard({ index: 2 }), shard({ index: 1 })]).shards?.present).toEqual([1, 2]);
  });

  it('a shard\'s own report says who it is, and reads back', () => {
    const r = shard({ index: 2, count: 3 });
    expect(r.shard).toEqual({ index: 2, count: 3, fingerprint: 'f00d', runId: 'spread@2026-01-01T12:00:00Z' });
    expect(readReport(JSON.parse(JSON.stringify(r))).shard).toEqual(r.shard);
    expect(renderSummary(r)).toMatch(/^flowgauge spread \(shard 2\/3\): PASS/m);
    expect(renderMarkdown(r)).toContain('- shard 2/3 of run "spread@2026-01-01T12:00:00Z"');
  });
});

describe('a merge that lacks a shard', () => {
  it('merges what it has, names the missing shard, and is PARTIAL, never a pass, though its thresholds passed', () => {
    const one = shard({ index: 1, count: 3 });
    const three = shard({ index: 3, count: 3 });
    const m = merge([one, three], ['a.json', 'c.json']);
    expect(m.shards).toMatchObject({ count: 3, present: [1, 3], missing: [2] });
    expect(m.load.started).toBe(one.load.started + three.load.started);
    expect(m.thresholds.every((t) => t.passed)).toBe(true);
    expect(m.passed).toBe(false);
    expect(m.verdict).toBe('PARTIAL');
    const summary = renderSummary(m);
    expect(summary).toMatch(/^flowgauge spread: PARTIAL in /m);
    expect(summary).toContain("PARTIAL: missing shard 2/3 (2 of 3 merged): these figures are of part of the run's load; its thresholds passed on what is there, which is no pass for the run");
    expect(renderMarkdown(m)).toContain('shards 1, 3 of 3 (missing 2) of run');
    expect(readReport(JSON.parse(JSON.stringify(m))).verdict).toBe('PARTIAL');
  });

  it('completed later by merging the partial merge with the missing shard', () => {
    const partial = merge([shard({ index: 1 })]);
    expect(partial.shards).toMatchObject({ count: 2, present: [1], missing: [2] });
    const whole = merge([partial, shard({ index: 2 })], ['partial.json', 'b.json']);
    expect(whole.shards).toMatchObject({ present: [1, 2], missing: [] });
    expect(whole.verdict).toBe('PASS');
    expect(whole.load.started).toBe(2 * RATE * SECONDS);
  });
});

describe('reports that do not belong together are refused, naming the files', () => {
  it('the same shard twice (a retried pod that wrote again)', () => {
    expect(() => merge([shard({ index: 1 }), shard({ index: 2 }), shard({ index: 2 })], ['a.json', 'b.json', 'b-again.json'])).toThrow(
      /^cannot merge: shard 2\/2 is given twice \(b\.json, b-again\.json\): merge each shard once/,
    );
  });

  it('shards of different runs', () => {
    expect(() => merge([shard({ index: 1, runId: 'run-001' }), shard({ index: 2, runId: 'run-002' })], ['a.json', 'b.json'])).toThrow(
      /cannot merge: the reports are of different runs \(a\.json: run "run-001", b\.json: run "run-002"\)/,
    );
    expect(() => merge([shard({ index: 1, runId: null }), shard({ index: 2 })], ['a.json', 'b.json'])).toThrow(/\(a\.json: no run id, b\.json: run "spread@/);
  });

  it('shards of different scenarios or settings', () => {
    expect(() => merge([shard({ index: 1 }), shard({ index: 2, fingerprint: 'beef' })], ['a.json', 'b.json'])).toThrow(/cannot merge: a\.json and b\.json ran different scenarios or settings \(fingerprints f00d and beef\)/);
  });

  it('shards of different counts', () => {
    expect(() => merge([shard({ index: 1, count: 2 }), shard({ index: 2, count: 3 })], ['a.json', 'b.json'])).toThrow(/cannot merge: a\.json is of 2 shards, b\.json of 3/);
  });

  it('a shard with a report of no shard', () => {
    const { shard: _s, ...plain } = shard({ index: 2 });
    expect(() => merge([shard({ index: 1 }), plain as Report], ['a.json', 'old.json'])).toThrow(/cannot merge: a\.json is a shard of a run, old\.json is not/);
  });

  it('reports of no shard merge as they always have', () => {
    const strip = (r: Report): Report => {
      const { shard: _s, ...rest } = r;
      return rest as Report;
    };
    const m = merge([strip(shard({ index: 1 })), strip(shard({ index: 2 }))]);
    expect(m.shards).toBeUndefined();
    expect(m.verdict).toBe('PASS');
    expect(m.load.started).toBe(2 * RATE * SECONDS);
  });
});

describe('warnings of merged shards', () => {
  it('each once, saying which shards raised it', () => {
    const drop = (n: number) => [{ code: 'DROPPED', message: `${n} of 20 starts were dropped` }];
    const m = merge([
      shard({ index: 1, count: 3, warnings: [{ code: 'VALIDATE_OFF', message: 'validate: off' }, ...drop(3)] }),
      shard({ index: 2, count: 3, warnings: [{ code: 'VALIDATE_OFF', message: 'validate: off' }] }),
      shard({ index: 3, count: 3, warnings: [{ code: 'VALIDATE_OFF', message: 'validate: off' }, ...drop(5)] }),
    ]);
    expect(m.warnings).toEqual([
      { code: 'VALIDATE_OFF', message: 'validate: off (shard 1/3, shard 2/3, shard 3/3)' },
      { code: 'DROPPED', message: '3 of 20 starts were dropped (figures of shard 1/3; shard 3/3 said the same of its share)' },
    ]);
  });
});

describe('a shard that came up late and joined the schedule in phase', () => {
  it('the merge names every shard\'s offset and what the late one missed; the rate is over the whole schedule', () => {
    const one = shard({ index: 1 });
    const late = shard({ index: 2, joinedAtS: 3 });
    // Its arrivals at 0.25, 0.75, … 2.75 s had passed: 6 missed, 14 sent.
    expect(late.load).toMatchObject({ missed: 6, joinedAtS: 3, started: 14 });
    expect(renderSummary(late)).toMatch(/14 started, 0 dropped, 6 missed \(joined 3 s into the schedule\), /);
    const m = merge([one, late], ['a.json', 'b.json']);
    expect(m.load.started).toBe(34);
    expect(m.load.missed).toBe(6);
    expect(m.load.joinedAtS).toBe(3);
    expect(renderSummary(m)).toMatch(/34 started, 0 dropped, 6 missed \(the latest shard joined 3 s into the schedule\), /);
    // The shards together were active for the schedule's 10 s: the missed arrivals lower the rate.
    expect(m.load.scheduleS).toBe(10);
    expect(m.load.achievedRatePerS).toBe(3.4);
    const w = m.warnings?.find((x) => x.code === 'SHARDS_NOT_TOGETHER');
    expect(w?.message).toBe(
      'the 2 shards started 3.0 s apart (shard 1/2 (a.json) at 2026-01-01T12:00:00.000Z, shard 2/2 (b.json) at 2026-01-01T12:00:03.000Z; from the first start: shard 1/2 +0.0 s, shard 2/2 +3.0 s): ' +
        "shard 2/2 came up after --start-at and joined the schedule in phase, without the 6 arrivals already due (load.missed): until then the target got less than the scenario's rate. Start the shards with a wider margin before --start-at",
    );
    // Every slice from 3 s on has both shards' arrivals; before, only shard 1's.
    expect(m.slices.map((s) => s.requests)).toEqual([2, 2, 2, 4, 4, 4, 4, 4, 4, 4]);
  });
});
