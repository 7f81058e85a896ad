/**
 * Properties of `mergeReports` (issue 28): every field merges by the rule its section states,
 * never by a guess from its name.
 *
 * - Each rule kind on a focused case, the asyncRuns mean first: shards of {10 runs, 4 polls
 *   each} and {30 runs, 2 polls each} polled 2.5 times per run, not 6.
 * - Every shipped scenario, run briefly against one embedded service (a few scenarios at a
 *   time, each with tokens of its own): merging its report alone gives it back unchanged, and
 *   the reports of 2 and 3 shards of the same run (same seed, the
 *   shards' clocks started together) merge to the unsharded run's counts exactly (what the
 *   sharding itself keeps: see `opCounts` and the Poisson case), its rates within a tolerance,
 *   and every merged percentile is the percentile of the shards' values taken together, within
 *   HDR precision (3 significant digits). Latency percentiles of two different runs are not
 *   compared: they are different samples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import { builtinScenarioNames, findScenarioFile } from '../../src/cli/scenario-path.js';
import { createAsyncRunsCollector } from '../../src/collect/async-runs.js';
import { createLatencyHistogram, decodeHistogram, encodeHistogram, recordNs, toPct, type Pct } from '../../src/collect/histogram.js';
import { tierLimitPerMinute, type Tier } from '../../src/core/tiers.js';
import { mergeReports } from '../../src/report/merge.js';
import type { AsyncRunsReport, AuditReport, NotificationsReport, Report, ScenarioReport, UsageAuditReport } from '../../src/report/model.js';
import { reportSchema } from '../../src/report/report-schema.js';
import { REPORT_SECTIONS } from '../../src/report/sections/section-list.js';
import { executeRun } from '../../src/run/index.js';
import { loadScenarioFile, planOf, resolveRunPlan, type ResolvedRunPlan } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { fixtureReport, WALL0 } from './fixture.js';

const MS = 1e6;

let built: Report | undefined;
/**
 * `fixtureReport()`, built once (it records 1,200 samples: about a quarter of a second on a busy
 * machine, and these cases ask for it some thirty times); each caller gets its own copy.
 */
const fixture = (): Report => structuredClone((built ??= fixtureReport()));

/** `fixtureReport()` (a realistic 60 s run) with `patch` on top, started `offsetMs` after WALL0. */
function shard(patch: Partial<Report>, offsetMs = 0): Report {
  const base = fixture();
  return { ...base, startedAt: new Date(WALL0 + offsetMs).toISOString(), endedAt: new Date(WALL0 + offsetMs + 60_000).toISOString(), ...patch };
}

/** A follow collector's section after `runs` follows of `polls` polls each (completed `ms` after their start). */
function followed(runs: number, polls: number, ms = 100, progress: readonly number[] = [10, 50, 100]): AsyncRunsReport {
  const c = createAsyncRunsCollector({ pollIntervalMs: 250 });
  for (let i = 0; i < runs; i++) {
    const t = c.begin('run', 0);
    for (let p = 0; p < polls; p++) {
      const last = p === polls - 1;
      t.poll({ httpStatus: 200, errorCode: undefined, runStatus: last ? 'completed' : 'running', progress: progress[Math.min(p, progress.length - 1)] });
    }
    t.end('completed', ms * MS);
  }
  return c.snapshot();
}

const pct = (over: Partial<Pct>): Pct => ({ p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, count: 0, ...over });

describe('the asyncRuns mean (issue 28 item 1)', () => {
  it('{10 runs, mean 4} and {30 runs, mean 2} merge to a mean of 2.5 polls per run, weighted by the runs', () => {
    const a = followed(10, 4);
    const b = followed(30, 2);
    expect(a.pollsPerRun).toEqual({ runs: 10, mean: 4, max: 4 });
    expect(b.pollsPerRun).toEqual({ runs: 30, mean: 2, max: 2 });
    const m = mergeReports([shard({ asyncRuns: a }), shard({ asyncRuns: b })]);
    expect(m.asyncRuns?.pollsPerRun).toEqual({ runs: 40, mean: 2.5, max: 4 });
  });

  it('the merged section is the one a single collector that followed every run writes', () => {
    const whole = createAsyncRunsCollector({ pollIntervalMs: 250 });
    for (const [runs, polls] of [
      [10, 4],
      [30, 2],
    ] as const) {
      for (let i = 0; i < runs; i++) {
        const t = whole.begin('run', 0);
        for (let p = 0; p < polls; p++) t.poll({ httpStatus: 200, errorCode: undefined, runStatus: p === polls - 1 ? 'completed' : 'running', progress: [10, 50, 100][Math.min(p, 2)] });
        t.end('completed', 100 * MS);
      }
    }
    const m = mergeReports([shard({ asyncRuns: followed(10, 4) }), shard({ asyncRuns: followed(30, 2) })]);
    // Same completion time everywhere, so even the summary kept without a histogram is exact.
    expect(m.asyncRuns).toEqual(whole.snapshot());
  });
});

describe('one rule per kind', () => {
  it('sum: counts, and maps of counts key by key', () => {
    const a = followed(3, 2);
    const b = { ...followed(2, 3), polls: { total: 6, statuses: { '200': 5, '503': 1 }, errors: { SERVICE_UNAVAILABLE: 1 } } };
    const m = mergeReports([shard({ asyncRuns: a }), shard({ asyncRuns: b })]);
    expect(m.asyncRuns?.followed).toEqual({ run: 5, trigger: 0 });
    expect(m.asyncRuns?.polls).toEqual({ total: 12, statuses: { '200': 11, '503': 1 }, errors: { SERVICE_UNAVAILABLE: 1 } });
    const r = fixture();
    const two = mergeReports([r, shard({})]);
    expect(two.ops.run?.statuses).toEqual(Object.fromEntries(Object.entries(r.ops.run?.statuses ?? {}).map(([k, n]) => [k, 2 * n])));
    expect(two.load.started).toBe(2 * r.load.started);
  });

  it('min and max: the lowest and highest seen, a shard that saw none (null) ignored; a `max*`-named count still adds', () => {
    const low = followed(2, 3, 100, [-5, 20, 60]);
    const high = followed(2, 3, 100, [0, 40, 130]);
    const none = { ...followed(0, 0), progress: { ...followed(0, 0).progress } };
    expect(none.progress.min).toBeNull();
    const m = mergeReports([shard({ asyncRuns: low }), shard({ asyncRuns: high }), shard({ asyncRuns: none })]);
    expect(m.asyncRuns?.progress).toMatchObject({ min: -5, max: 130, atCompletion: { min: 60, max: 130 }, values: 12, outside0to100: 4 });
    const slow = shard({ rateLimit: { ...fixture().rateLimit, recoveryMs: 3000 } });
    const fast = shard({ rateLimit: { ...fixture().rateLimit, recoveryMs: 1000 } });
    expect(mergeReports([fast, slow]).rateLimit.recoveryMs).toBe(3000);
    // No rule is read off a name: `maxInFlight`-like counts are not taken for maxima.
    const withMaxCount = (n: number): Report => shard({ asyncRuns: { ...followed(1, 1), pollsPerRun: { runs: 1, mean: 1, max: n } } });
    expect(mergeReports([withMaxCount(3), withMaxCount(5)]).asyncRuns?.pollsPerRun.max).toBe(5);
  });

  it('union: the notifications event set of both names is mixed, `none` adds nothing; warnings said once', () => {
    const n = (eventSet: NotificationsReport['eventSet']): Report => shard({ notifications: { ...notifications(), eventSet } });
    expect(mergeReports([n('flow.run'), n('flow')]).notifications?.eventSet).toBe('mixed');
    expect(mergeReports([n('none'), n('flow')]).notifications?.eventSet).toBe('flow');
    const w = { code: 'DROPPED', message: '3 starts dropped' };
    const m = mergeReports([shard({ warnings: [w] }), shard({ warnings: [w, { code: 'EVENT_LOOP_LAG', message: 'lag' }] })]);
    expect(m.warnings).toEqual([w, { code: 'EVENT_LOOP_LAG', message: 'lag' }]);
  });

  it('setting: a poll interval, a grace period, an objective, an executor must agree (an error naming both)', () => {
    const a = shard({ asyncRuns: followed(1, 1) });
    const b = shard({ asyncRuns: { ...followed(1, 1), pollIntervalMs: 500, meanBiasMs: 250 } });
    expect(() => mergeReports([a, b], { names: ['a.json', 'b.json'] })).toThrow(/asyncRuns\.pollIntervalMs \(the poll interval\) differs \(a\.json: 250, b\.json: 500\)/);
    const g = (graceMs: number): Report => shard({ notifications: { ...notifications(), graceMs } });
    expect(() => mergeReports([g(5000), g(2000)])).toThrow(/notifications\.graceMs \(the grace period\) differs/);
    expect(() => mergeReports([a, shard({ load: { ...a.load, executor: 'poisson' } })])).toThrow(/the executor differs/);
  });

  it('setting that may differ: the grace period of cut requests is left out, the reset semantics become unknown', () => {
    const cut = (gracefulStopS: number): Report => shard({ load: { ...fixture().load, cut: 2, gracefulStopS } });
    expect(mergeReports([cut(5), cut(5)]).load).toMatchObject({ cut: 4, gracefulStopS: 5 });
    const m = mergeReports([cut(5), cut(10)]);
    expect(m.load.cut).toBe(4);
    expect(m.load.gracefulStopS).toBeUndefined();
    const rs = (resetSemantics: Report['rateLimit']['resetSemantics']): Report => shard({ rateLimit: { ...fixture().rateLimit, resetSemantics } });
    expect(mergeReports([rs('delta-seconds'), rs('unknown')]).rateLimit.resetSemantics).toBe('delta-seconds');
    expect(mergeReports([rs('delta-seconds'), rs('epoch-seconds')]).rateLimit.resetSemantics).toBe('unknown');
  });

  it('histogram: a percentile is re-read from the merged histogram; one with values but no histogram is refused', () => {
    const h = (values: readonly number[]): { enc: string; pct: Pct } => {
      const x = createLatencyHistogram();
      for (const v of values) recordNs(x, v * MS);
      return { enc: encodeHistogram(x), pct: toPct(x) };
    };
    const fast = h(Array.from({ length: 99 }, () => 1));
    const slow = h([500]);
    const all = h([...Array.from({ length: 99 }, () => 1), 500]);
    const stepped = (x: { enc: string; pct: Pct }): Report => shard({ steps: { poll: x.pct }, histograms: { ...fixture().histograms, 'step.poll': x.enc } });
    const m = mergeReports([stepped(fast), stepped(slow)]);
    expect(m.steps?.poll).toEqual(all.pct);
    expect(m.steps?.poll?.p99).toBeLessThan(2);
    expect(() => mergeReports([stepped(fast), shard({ steps: { poll: slow.pct } })], { names: ['a.json', 'b.json'] })).toThrow(
      /b\.json: steps\.poll has 1 steps but no histograms\["step\.poll"\]/,
    );
  });

  it('worst: a summary kept without a histogram takes each statistic\'s worst shard, its count added, its mean weighted', () => {
    const n = (deliveryLatencyMs: Pct): Report => shard({ notifications: { ...notifications(), deliveryLatencyMs } });
    const m = mergeReports([n(pct({ p50: 10, p99: 50, max: 60, mean: 12, count: 30 })), n(pct({ p50: 20, p99: 40, max: 90, mean: 24, count: 10 }))]);
    expect(m.notifications?.deliveryLatencyMs).toEqual(pct({ p50: 20, p99: 50, max: 90, mean: 15, count: 40 }));
  });

  it('recompute: availability and the budget from the merged events, the achieved rate over the union of the schedules', () => {
    const r = fixture();
    const good = shard({ slo: { ...r.slo, good: 1000, bad: 0 } });
    const bad = shard({ slo: { ...r.slo, good: 900, bad: 100 } });
    const m = mergeReports([good, bad]);
    expect(m.slo).toMatchObject({ good: 1900, bad: 100, availability: 0.95, errorRatio: 0.05 });
    expect(m.slo.errorBudgetConsumed).toBeCloseTo(0.05 / (1 - r.slo.objective), 9);
    // Two shards 30 s apart over a 60 s schedule ran for 90 s together.
    const later = mergeReports([shard({}), shard({}, 30_000)]);
    expect(later.load.scheduleS ?? later.durationS).toBeCloseTo(90, 3);
    expect(later.load.achievedRatePerS).toBeCloseTo((2 * r.load.started) / 90, 3);
  });

  it('recompute: the audit adds what the client counted, not what the service said of the whole account once per shard', () => {
    const usage = (client: number, service: number): UsageAuditReport => ({
      window: { start: new Date(WALL0).toISOString(), end: new Date(WALL0 + 61_000).toISOString() },
      scope: 'account',
      service: { totalRuns: service, successfulRuns: service, failedRuns: 0, totalTokens: 10 * service },
      client: { totalRuns: client, successfulRuns: client, failedRuns: 0, totalTokens: 10 * client },
      diff: { totalRuns: service - client, successfulRuns: service - client, failedRuns: 0, totalTokens: 10 * (service - client) },
      exact: service === client,
      flows: [],
      clientUnknown: { runsWithoutTokens: 0, unresolved: 0 },
      errors: [],
    });
    // Each shard's query saw the whole run's 100 runs; each client saw its own 40 or 60.
    const m = mergeReports([shard({ audit: { usage: usage(40, 100) } }), shard({ audit: { usage: usage(60, 100) } })]);
    expect(m.audit?.usage).toMatchObject({ client: { totalRuns: 100 }, service: { totalRuns: 100 }, diff: { totalRuns: 0, totalTokens: 0 }, exact: true });
    const forbidden = (f: boolean): AuditReport => ({ usage: { ...usage(1, 1), service: null, diff: null, exact: false, ...(f ? { forbidden: true } : {}) } });
    expect(mergeReports([shard({ audit: forbidden(true) }), shard({ audit: forbidden(true) })]).audit?.usage?.forbidden).toBe(true);
    // all: one shard that could read usage is not refused.
    expect(mergeReports([shard({ audit: forbidden(true) }), shard({ audit: forbidden(false) })]).audit?.usage?.forbidden).toBeUndefined();
  });

  it('any, all and first: interrupted when one shard was, embedded when every one was, aborted by the earliest shard', () => {
    const m = mergeReports([
      shard({ interrupted: true, target: { baseUrl: 'http://a/v1', embedded: true } }, 500),
      shard({ abortedBy: 'run.latency.p99', target: { baseUrl: 'http://b/v1', embedded: false } }, 0),
      shard({ abortedBy: 'availability' }, 900),
    ]);
    expect(m.interrupted).toBe(true);
    expect(m.target).toEqual({ baseUrl: 'http://b/v1, http://a/v1, http://127.0.0.1:4000/v1', embedded: false });
    expect(m.abortedBy).toBe('run.latency.p99');
    const calm = mergeReports([shard({ abortedBy: 'availability' }, 900), shard({ abortedBy: 'run.latency.p99' }, 0)]);
    expect(calm).toMatchObject({ interrupted: false, abortedBy: 'run.latency.p99', verdict: 'ABORTED' });
  });

  it('each: checks by name, their examples the first distinct ones', () => {
    const m = mergeReports([
      shard({ checks: { ok: { passes: 3, fails: 1, examples: [{ expected: '1', actual: '2' }] } } }),
      shard({ checks: { ok: { passes: 2, fails: 1, examples: [{ expected: '1', actual: '3' }] }, other: { passes: 1, fails: 0 } } }),
    ]);
    expect(m.checks).toEqual({
      ok: { passes: 5, fails: 2, examples: [{ expected: '1', actual: '2' }, { expected: '1', actual: '3' }] },
      other: { passes: 1, fails: 0 },
    });
  });

  it('every section of the report@1 schema has its merger, and no other', () => {
    expect(Object.keys(REPORT_SECTIONS).sort()).toEqual(Object.keys(reportSchema.shape).sort());
  });
});

/** A `notifications` section as the matcher and receiver write it. */
function notifications(): NotificationsReport {
  return {
    eventSet: 'flow.run',
    events: { 'flow.run.completed': 10 },
    received: 10,
    beforeRun: 0,
    expected: 10,
    matched: 10,
    missing: 0,
    late: 0,
    awaiting: 0,
    duplicate: 0,
    outOfOrder: 0,
    statusMismatch: 0,
    unsolicited: 0,
    sessionEvents: 0,
    unknownEvents: 0,
    deliveryLatencyMs: pct({ p50: 5, p90: 6, p95: 7, p99: 8, p999: 8, max: 8, mean: 5, count: 10 }),
    beforeClient: 0,
    leadMs: pct({}),
    graceMs: 5000,
    triggers: { accepted: 0, matchedByRunId: 0, matchedByFlowOrder: 0, unresolved: 0 },
    requests: 10,
    rejected: {},
  };
}

// ---- every shipped scenario ------------------------------------------------------------------

/** Each scenario's schedule, cut to this long. */
const RUN_MS = 1000;
/** Long enough for every shipped journey to end on its own after the schedule (a guard, never waited out). */
const GRACE_MS = 60_000;
const CONFIGS = [1, 2, 3] as const;

let service: ReferenceService;
const clients: Client[] = [];

const tokenOf = (scenario: string, config: number, tier: string): string => `fg_prop_${scenario}_${config}_${tier}`.replace(/-/g, '_');

beforeAll(async () => {
  const tokens: Record<string, { account: string; tier: Tier }> = {};
  // Every run its own tokens (and accounts): no limiter window is shared between runs.
  for (const name of [...builtinScenarioNames(), 'rows']) {
    for (const config of CONFIGS) for (const tier of ['free', 'pro'] as const) tokens[tokenOf(name, config, tier)] = { account: `acct_${name}_${config}_${tier}`, tier };
  }
  service = await startReferenceService({ latency: 'none', tokens });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await service?.close();
});

function clientFor(token: string): Client {
  const c = createClient({ baseUrl: service.baseUrl, token, connections: 16 });
  clients.push(c);
  return c;
}

/** Resolves when `n` callers are waiting: the shards' clocks start together, as `run --workers` holds them. */
function barrier(n: number): () => Promise<void> {
  let waiting = 0;
  let open!: () => void;
  const all = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++waiting === n) open();
    return all;
  };
}

/** The reports of the run of `plan` split into `count` shards (1: the unsharded run). */
async function runShards(name: string, plan: ResolvedRunPlan, count: number): Promise<Report[]> {
  const ready = barrier(count);
  const tierName = (t: Tier): string => (typeof t === 'string' ? t : tierLimitPerMinute(t) <= 100 ? 'free' : 'pro');
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const byScenario = Object.fromEntries(plan.scenarios.map((s) => [s.name, clientFor(tokenOf(name, count, tierName(s.tier)))]));
      const outcome = await executeRun({
        scenario: plan,
        client: byScenario[plan.scenarios[0]?.name as string] as Client,
        clients: byScenario,
        target: { baseUrl: service.baseUrl, embedded: true },
        ready,
        ...(count > 1 ? { shard: { index, count } } : {}),
      });
      return outcome.report;
    }),
  );
}

/**
 * What two runs of one schedule must agree on exactly: counts that do not depend on which
 * operation the mix drew (no timings, no token counts the service drew).
 */
function counts(r: Report | ScenarioReport): unknown {
  const ops = Object.values(r.ops);
  const add = (get: (o: NonNullable<(typeof ops)[number]>) => Readonly<Record<string, number>>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const o of ops) if (o !== undefined) for (const [k, n] of Object.entries(get(o))) out[k] = (out[k] ?? 0) + n;
    return out;
  };
  return {
    started: r.load.started,
    dropped: r.load.dropped,
    cancelled: r.load.cancelled ?? 0,
    requests: ops.reduce((n, o) => n + (o?.count ?? 0), 0),
    served: ops.reduce((n, o) => n + (o?.latencyMs.count ?? 0), 0),
    statuses: add((o) => o.statuses),
    errors: add((o) => o.errors),
    responses429: r.rateLimit.responses429,
    slo: { good: r.slo.good, bad: r.slo.bad, excluded: r.slo.excluded, availability: r.slo.availability },
    violations: r.contractViolationTotals.total,
    iterations:
      r.iterations === undefined
        ? undefined
        : { started: r.iterations.started, completed: r.iterations.completed, failed: r.iterations.failed, interrupted: r.iterations.interrupted, dropped: r.iterations.dropped, durations: r.iterations.durationMs.count },
    checks: r.checks === undefined ? undefined : Object.fromEntries(Object.entries(r.checks).map(([k, c]) => [k, { passes: c.passes, fails: c.fails }])),
    steps: r.steps === undefined ? undefined : Object.fromEntries(Object.entries(r.steps).map(([k, p]) => [k, p.count])),
    ...('slices' in r ? { sliced: r.slices.reduce((n, s) => n + s.requests, 0) } : {}),
    ...('scenarios' in r && r.scenarios !== undefined ? { scenarios: Object.fromEntries(Object.entries(r.scenarios).map(([k, s]) => [k, counts(s)])) } : {}),
  };
}

/**
 * Counts of each operation (and of streams, one per stream request). A mix of several entries is
 * drawn by each shard for its own arrivals (a smooth weighted sequence per shard), so a shard's
 * draw is off the exact shares by less than one request per operation: N shards by at most N + 1
 * from the unsharded run's. Journeys and single-entry mixes send the same requests exactly.
 */
function opCounts(r: Report | ScenarioReport): Record<string, number> {
  const out: Record<string, number> = { streams: r.stream.count, completedStreams: r.stream.completed, ttft: r.stream.ttftMs.count, inputWords: r.stream.prompts?.words?.promptTokens.count ?? 0 };
  for (const [op, o] of Object.entries(r.ops)) out[op] = o?.count ?? 0;
  return out;
}

function expectOpCounts(m: Report | ScenarioReport, r: Report | ScenarioReport, slack: number, where: string): void {
  const [a, b] = [opCounts(m), opCounts(r)];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    expect(Math.abs((a[k] ?? 0) - (b[k] ?? 0)), `${where} ${k}: merged ${a[k] ?? 0}, unsharded ${b[k] ?? 0}`).toBeLessThanOrEqual(slack);
  }
}

/**
 * The percentile of the shards' values taken together, from their own histograms: the value of
 * the bucket where the rank `ceil(q × n)` falls, in ms (as `toPct` reads one histogram).
 */
function oracle(encoded: readonly string[], q: number): number {
  const buckets: [number, number][] = [];
  for (const enc of encoded) {
    const h = decodeHistogram(enc);
    for (let i = 0; i < h.countsArrayLength; i++) {
      const c = h.getCountAtIndex(i);
      if (c > 0) buckets.push([h.highestEquivalentValue(h.valueFromIndex(i)), c]);
    }
  }
  buckets.sort((a, b) => a[0] - b[0]);
  const n = buckets.reduce((s, [, c]) => s + c, 0);
  const rank = Math.max(1, Math.ceil(q * n - 1e-9));
  let seen = 0;
  for (const [v, c] of buckets) {
    seen += c;
    if (seen >= rank) return v / 1000;
  }
  return 0;
}

/** Seconds covered by the shards' windows (each from its start, over its schedule or else its duration), overlaps once. */
function unionWindowS(shards: readonly Report[]): number {
  const spans = shards.map((x) => [Date.parse(x.startedAt), Date.parse(x.startedAt) + (x.load.scheduleS ?? x.durationS) * 1000] as const).sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let end = -Infinity;
  for (const [from, to] of spans) {
    covered += Math.max(0, to - Math.max(from, end));
    end = Math.max(end, to);
  }
  return covered / 1000;
}

/** Within HDR precision: 3 significant digits (and a µs for values near zero). */
const near = (a: number, b: number): boolean => Math.abs(a - b) <= Math.max(1e-3 * Math.max(Math.abs(a), Math.abs(b)), 0.001);

/** Every merged latency percentile against the oracle over the shards' histograms. */
function checkPercentiles(merged: Report | ScenarioReport, shards: readonly (Report | ScenarioReport)[], where: string): void {
  const pcts: [string, Pct | undefined][] = [
    ...Object.entries(merged.ops).map(([op, o]) => [`${op}.latency`, o?.latencyMs] as [string, Pct | undefined]),
    ['stream.ttft', merged.stream.ttftMs],
    ['stream.itl', merged.stream.itlMs],
    ['iteration.duration', merged.iterations?.durationMs],
    ...Object.entries(merged.steps ?? {}).map(([s, p]) => [`step.${s}`, p] as [string, Pct]),
  ];
  for (const [key, p] of pcts) {
    if (p === undefined || p.count === 0) continue;
    const parts = shards.flatMap((s) => (s.histograms[key] === undefined ? [] : [s.histograms[key] as string]));
    for (const [stat, q] of [
      ['p50', 0.5],
      ['p90', 0.9],
      ['p99', 0.99],
      ['max', 1],
    ] as const) {
      const want = oracle(parts, q);
      expect(near(p[stat], want), `${where} ${key} ${stat}: merged ${p[stat]}, the shards' values together ${want}`).toBe(true);
    }
  }
}

// The scenarios go side by side (vitest's maxConcurrency, 5 at a time): each mostly waits on its
// 1 s schedule or its journeys' think time, and owns its tokens and accounts.
describe.concurrent('every shipped scenario, merged', () => {
  for (const name of builtinScenarioNames()) {
    it(`${name}: one report merges back unchanged; 2 and 3 shards merge to the unsharded run's counts and exact percentiles`, async () => {
      const file = findScenarioFile(process.cwd(), name) as string;
      const resolved = planOf(resolveRunPlan(await loadScenarioFile(file), { durationMs: RUN_MS }, { source: file }));
      // Every iteration ends on its own: a journey of ~7 s (conversation's three turns 2 s apart)
      // cut by the grace period after a 1 s schedule was cut in one run and not in the other
      // whenever a busy machine slowed a turn, and the counts then differ for no fault of the merge.
      const plan = { ...resolved, scenarios: resolved.scenarios.map((x) => ({ ...x, load: { ...x.load, gracefulStopMs: Math.max(x.load.gracefulStopMs, GRACE_MS) } })) };
      const [whole, two, three] = await Promise.all(CONFIGS.map((n) => runShards(name, plan, n)));
      const r = (whole as Report[])[0] as Report;
      const poisson = plan.scenarios.some((x) => x.load.executor === 'poisson');
      const mixed = plan.scenarios.some((x) => x.journey === undefined && x.mix.length > 1);
      expect(r.load.started, 'the run started something').toBeGreaterThan(0);

      expect(mergeReports([r])).toEqual(r);

      for (const shards of [two, three] as Report[][]) {
        const m = mergeReports(shards);
        const where = `${name} in ${shards.length} shards`;
        if (poisson) {
          // Poisson shards draw rate ÷ N each from a seed of their own: the starts agree in law only.
          expect(Math.abs(m.load.started - r.load.started), where).toBeLessThanOrEqual(4 * Math.sqrt(r.load.started) + 3);
          expect(m.load.started, where).toBe(shards.reduce((n, x) => n + x.load.started, 0));
          expect(m.slo.good + m.slo.bad + m.slo.excluded, where).toBe(shards.reduce((n, x) => n + x.slo.good + x.slo.bad + x.slo.excluded, 0));
        } else {
          expect(counts(m), where).toEqual(counts(r));
          const slack = mixed ? shards.length + 1 : 0;
          expectOpCounts(m, r, slack, where);
          for (const [s, section] of Object.entries(r.scenarios ?? {})) expectOpCounts(m.scenarios?.[s] as ScenarioReport, section, slack, `${where} scenarios.${s}`);
          // What was done: the starts over the union of the windows the shards ran in (not the
          // unsharded run's rate: the shards run side by side on this machine's clock, and a busy
          // machine starts them apart).
          const want = m.load.started / unionWindowS(shards);
          // The merge rounds the window and the rate to 3 decimals.
          expect(Math.abs(m.load.achievedRatePerS - want), where).toBeLessThanOrEqual(1e-3 * want + 1e-3);
        }
        // What was asked: the shares add back to the rate (each rounded to 3 decimals).
        if (r.load.targetRatePerS !== null) expect(Math.abs((m.load.targetRatePerS ?? 0) - r.load.targetRatePerS), where).toBeLessThanOrEqual(0.002 * shards.length);
        expect(m.thresholds.map((t) => t.metric), where).toEqual(r.thresholds.map((t) => t.metric));
        checkPercentiles(m, shards, where);
        for (const [s, section] of Object.entries(m.scenarios ?? {})) {
          checkPercentiles(section, shards.flatMap((x) => (x.scenarios?.[s] === undefined ? [] : [x.scenarios[s] as ScenarioReport])), `${where} scenarios.${s}`);
        }
      }
    }, 60_000);
  }

  // Shard i's k-th iteration is the run's (i + k·N)-th and reads that row: two shards of
  // prompt-sweep send the prompts of the whole file between them, as one process does.
  it('a sharded journey reads the rows of the whole run: the prompt lengths of 2 shards are the unsharded run\'s', async () => {
    const file = findScenarioFile(process.cwd(), 'prompt-sweep') as string;
    const plan = planOf(resolveRunPlan(await loadScenarioFile(file), { durationMs: RUN_MS }, { source: file }));
    const [[r], two] = (await Promise.all([runShards('rows', plan, 1), runShards('rows', plan, 2)])) as [Report[], Report[]];
    const m = mergeReports(two);
    expect(m.stream.prompts?.words?.promptTokens.count).toBe(r?.stream.prompts?.words?.promptTokens.count);
    expect(m.stream.prompts?.words?.promptTokens).toEqual(r?.stream.prompts?.words?.promptTokens);
    // Each band has the same prompts; timings and output lengths are the service's draws for each process.
    const counts = (x: Report | undefined) => Object.fromEntries(Object.entries(x?.stream.prompts?.words?.byBand ?? {}).map(([b, v]) => [b, v.promptTokens]));
    expect(counts(m)).toEqual(counts(r));
  }, 30_000);
});
