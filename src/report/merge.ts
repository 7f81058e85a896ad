/**
 * Merging the reports of a distributed run's shards into one report of the whole. Pure.
 *
 * Exact where the data allows it: every latency and stream histogram is decoded and merged
 * bucket by bucket, so merged percentiles equal those of one histogram that saw every sample;
 * counts, statuses, errors and SLI events add up; slices are aligned on wall time (each shard's
 * `startedAt` + the slice's `t`) and merged the same way. What a report keeps only as a summary
 * is combined conservatively and documented as such (docs/reports.md): the schedule lag takes
 * each percentile's worst shard, the first 429 is the earliest in wall time with its position
 * within its shard, recovery time takes the slowest shard.
 */
import { FlowgaugeError } from '../core/errors.js';
import { OPS } from '../core/ops.js';
import type { OpName } from '../core/ops.js';
import { createLatencyHistogram, decodeHistogram, encodeHistogram, mergeInto } from '../collect/histogram.js';
import type { LatencyHistogram, Pct } from '../collect/histogram.js';
import type { ContractViolationEntry } from '../collect/contract-violations.js';
import type { RateLimitWindow } from '../collect/rate-limit-analyser.js';
import type { SliceEntry } from '../collect/slices.js';
import { STREAM_HISTOGRAMS } from '../collect/stream-collector.js';
import { promptLengthFrom } from '../collect/prompt-length.js';
import { thresholdOfResult } from '../slo/thresholds.js';
import type { ParsedThreshold, ThresholdResult } from '../slo/thresholds.js';
import { evaluateReportThresholds } from './metrics.js';
import { REPORT_SCHEMA } from './model.js';
import type { ChecksReport, IterationsReport, LoadReport, RateLimitReport, Report, RunWarning, ScenarioReport, StreamReport } from './model.js';
import { sloSection } from './build-report.js';
import { mergeChecks, mergeIterations, mergeStructural, stepsFrom, worstPct } from './merge-sections.js';
import { mergeOps, pctOf } from './merge-ops.js';

/** Options of `mergeReports`. */
export interface MergeOptions {
  /** How to name each input in error messages (file names); default `report 1`, `report 2`, … */
  readonly names?: readonly string[];
}

/** Every field of report@1 (a plain union, so mapping over it makes each one required). */
type ReportField = keyof Report & string;

/** Windows kept in the merged report, newest last (as the analyser keeps them). */
const MAX_WINDOWS = 1000;

const fail = (message: string): never => {
  throw new FlowgaugeError('FG_REPORT_INVALID', message);
};

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

const addCounts = (into: Record<string, number>, from: Readonly<Record<string, number>>): void => {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
};

interface Named {
  readonly report: Report;
  readonly name: string;
  readonly startMs: number;
}

/** Merges serialised histograms exactly; throws naming the report whose histogram is unreadable. */
function mergeEncoded(parts: readonly { enc: string; name: string; what: string }[]): LatencyHistogram {
  const target = createLatencyHistogram();
  for (const { enc, name, what } of parts) {
    let h: LatencyHistogram;
    try {
      h = decodeHistogram(enc);
    } catch (err) {
      return fail(`${name}: ${what} is not a readable HDR histogram${err instanceof Error && err.message !== '' ? `: ${err.message}` : ''}`);
    }
    mergeInto(target, h);
  }
  return target;
}

function checkSame<T>(shards: readonly Named[], what: string, get: (r: Report) => T): T {
  const first = shards[0] as Named;
  const value = get(first.report);
  for (const s of shards.slice(1)) {
    const v = get(s.report);
    if (v !== value) {
      fail(`cannot merge: ${what} differs (${first.name}: ${JSON.stringify(value)}, ${s.name}: ${JSON.stringify(v)}); shards of one run share it`);
    }
  }
  return value;
}

function mergeHistograms(shards: readonly Named[]): Record<string, string> {
  const keys = [...new Set(shards.flatMap((s) => Object.keys(s.report.histograms)))].sort();
  const out: Record<string, string> = {};
  for (const key of keys) {
    const parts = shards.flatMap((s) => {
      const enc = s.report.histograms[key];
      return enc === undefined ? [] : [{ enc, name: s.name, what: `histograms["${key}"]` }];
    });
    out[key] = encodeHistogram(mergeEncoded(parts));
  }
  return out;
}


function mergeStream(shards: readonly Named[], histograms: Readonly<Record<string, string>>): StreamReport {
  const sum = (get: (s: StreamReport) => number | undefined): number => shards.reduce((n, s) => n + (get(s.report.stream) ?? 0), 0);
  for (const s of shards) {
    if (s.report.stream.count === 0) continue;
    const missing = STREAM_HISTOGRAMS.find((n) => s.report.histograms[`stream.${n}`] === undefined && n !== 'ttfb' && n !== 'timeToEnd');
    if (missing !== undefined) fail(`${s.name}: stream has ${s.report.stream.count} streams but no histograms["stream.${missing}"]`);
  }
  const pct = (name: (typeof STREAM_HISTOGRAMS)[number]): Pct => pctOf(histograms, `stream.${name}`);
  return {
    count: sum((s) => s.count),
    completed: sum((s) => s.completed),
    incomplete: sum((s) => s.incomplete),
    ttfbMs: pct('ttfb'),
    timeToStartMs: pct('timeToStart'),
    ttftMs: pct('ttft'),
    itlMs: pct('itl'),
    tpotMs: pct('tpot'),
    timeToEndMs: pct('timeToEnd'),
    tokensPerS: pct('tokensPerS'),
    tokens: sum((s) => s.tokens),
    tokenCountMismatches: sum((s) => s.tokenCountMismatches),
    deliveredAtOnce: sum((s) => s.deliveredAtOnce ?? 0),
    unknownEvents: sum((s) => s.unknownEvents),
    malformedEvents: sum((s) => s.malformedEvents),
    ...promptLengthFrom(histograms),
  };
}

function mergeRateLimit(shards: readonly Named[], startMs: number, histograms: Readonly<Record<string, string>>): RateLimitReport {
  const rls = shards.map((s) => s.report.rateLimit);
  for (const s of shards) {
    const n = s.report.rateLimit.latencyMs?.count ?? 0;
    if (n > 0 && s.report.histograms['ratelimit.latency'] === undefined) {
      fail(`${s.name}: rateLimit.latencyMs has ${n} answers but no histograms["ratelimit.latency"]; percentiles cannot be merged exactly`);
    }
  }
  const limits = rls.map((r) => r.advertisedLimit).filter((n): n is number => n !== null);
  const semantics = new Set(rls.map((r) => r.resetSemantics).filter((x) => x !== 'unknown'));
  const resetSemantics = semantics.size === 1 ? ([...semantics][0] as RateLimitReport['resetSemantics']) : 'unknown';
  const headerViolations: Record<string, number> = {};
  for (const r of rls) addCounts(headerViolations, r.headerViolations);

  // Epoch Reset values name the same server window in every shard: such windows are one.
  let windows: RateLimitWindow[] = rls.flatMap((r) => r.windows.map((w) => ({ ...w })));
  if (resetSemantics === 'epoch-seconds') {
    const byReset = new Map<string, RateLimitWindow>();
    const rest: RateLimitWindow[] = [];
    for (const w of windows) {
      const prev = w.reset === null ? undefined : byReset.get(w.reset);
      if (w.reset === null) rest.push(w);
      else if (prev === undefined) byReset.set(w.reset, w);
      else {
        byReset.set(w.reset, {
          reset: w.reset,
          accepted: prev.accepted + w.accepted,
          rejected: prev.rejected + w.rejected,
          limit: prev.limit ?? w.limit ?? null,
          minRemaining: minOf(prev.minRemaining ?? null, w.minRemaining ?? null),
        });
      }
    }
    windows = [...[...byReset.values()].sort((a, b) => Number(a.reset) - Number(b.reset)), ...rest];
  }
  const overflow = Math.max(0, windows.length - MAX_WINDOWS);
  const first = shards
    .flatMap((s) => (s.report.rateLimit.first429 ? [{ at: s.startMs + s.report.rateLimit.first429.atMs, index: s.report.rateLimit.first429.index }] : []))
    .sort((a, b) => a.at - b.at)[0];
  const recoveries = rls.map((r) => r.recoveryMs).filter((n): n is number => typeof n === 'number');
  return {
    advertisedLimit: limits.length === 0 ? null : Math.max(...limits),
    resetSemantics,
    responses: rls.reduce((n, r) => n + (r.responses ?? 0), 0),
    responses429: rls.reduce((n, r) => n + r.responses429, 0),
    expected429: rls.reduce((n, r) => n + r.expected429, 0),
    premature429: rls.reduce((n, r) => n + r.premature429, 0),
    headerless429: rls.reduce((n, r) => n + (r.headerless429 ?? 0), 0),
    uncertain429: rls.reduce((n, r) => n + (r.uncertain429 ?? 0), 0),
    ...(rls.some((r) => r.rolling === true) ? { rolling: true } : {}),
    // The 429s' latency, from the merged histogram (exact), when any shard reported it.
    ...(rls.some((r) => r.latencyMs !== undefined) ? { latencyMs: pctOf(histograms, 'ratelimit.latency') } : {}),
    headerViolations,
    windows: windows.slice(overflow),
    windowsDropped: rls.reduce((n, r) => n + (r.windowsDropped ?? 0), 0) + overflow,
    first429: first === undefined ? null : { index: first.index, atMs: round3(first.at - startMs) },
    recoveryMs: recoveries.length === 0 ? null : Math.max(...recoveries),
  };
}

function minOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

function mergeViolations(shards: readonly Named[]): { entries: ContractViolationEntry[]; totals: Report['contractViolationTotals'] } {
  const byKey = new Map<string, ContractViolationEntry>();
  const totals = { total: 0, droppedDistinct: 0, droppedCount: 0 };
  for (const s of shards) {
    for (const v of s.report.contractViolations) {
      const key = JSON.stringify([v.op, v.path, v.expected, v.got]);
      const prev = byKey.get(key);
      byKey.set(key, { ...v, count: (prev?.count ?? 0) + v.count });
    }
    const t = s.report.contractViolationTotals ?? { total: s.report.contractViolations.reduce((n, v) => n + v.count, 0), droppedDistinct: 0, droppedCount: 0 };
    totals.total += t.total;
    totals.droppedDistinct += t.droppedDistinct;
    totals.droppedCount += t.droppedCount;
  }
  return { entries: [...byKey.values()].sort((a, b) => b.count - a.count), totals };
}

interface SliceAcc {
  requests: number;
  good: number;
  bad: number;
  excluded: number;
  responses429: number;
  ops: Map<OpName, { count: number; parts: { enc: string; name: string; what: string }[] }>;
}

function mergeSlices(shards: readonly Named[], startMs: number, sliceMs: number): SliceEntry[] {
  const acc: SliceAcc[] = [];
  for (const s of shards) {
    s.report.slices.forEach((slice, i) => {
      // A slice belongs where its start falls on the merged run's clock.
      const index = Math.max(0, Math.floor((s.startMs + slice.t * 1000 - startMs) / sliceMs + 1e-6));
      const a = (acc[index] ??= { requests: 0, good: 0, bad: 0, excluded: 0, responses429: 0, ops: new Map() });
      a.requests += slice.requests;
      a.good += slice.good;
      a.bad += slice.bad;
      a.excluded += slice.excluded;
      a.responses429 += slice.responses429;
      for (const [op, v] of Object.entries(slice.ops) as [OpName, { count: number; latency: string }][]) {
        let o = a.ops.get(op);
        if (o === undefined) a.ops.set(op, (o = { count: 0, parts: [] }));
        o.count += v.count;
        o.parts.push({ enc: v.latency, name: s.name, what: `slices[${i}].ops.${op}.latency` });
      }
    });
  }
  const sliceS = sliceMs / 1000;
  return Array.from({ length: acc.length }, (_, i) => {
    const a = acc[i];
    const t = round3(i * sliceS);
    if (a === undefined) return { t, requests: 0, good: 0, bad: 0, excluded: 0, responses429: 0, ops: {} };
    const ops: Partial<Record<OpName, { count: number; latency: string }>> = {};
    for (const op of OPS) {
      const o = a.ops.get(op);
      if (o !== undefined) ops[op] = { count: o.count, latency: encodeHistogram(mergeEncoded(o.parts)) };
    }
    return { t, requests: a.requests, good: a.good, bad: a.bad, excluded: a.excluded, responses429: a.responses429, ops };
  });
}

/** One shard's `load`, and where its schedule ran on the wall clock. */
interface PlacedLoad {
  readonly load: LoadReport;
  /** The shard's `startedAt` in ms since the epoch. */
  readonly startMs: number;
  /** Its active time without `scheduleS`: the report's `durationS`. */
  readonly durationS: number;
}

/**
 * Seconds during which at least one shard was active: the union of `[start, start + active)`
 * over the shards, each placed on the wall clock by its start (a gap between shards is no one's).
 */
function unionS(spans: readonly { readonly startMs: number; readonly activeS: number }[]): number {
  if (spans.length === 0) return 0;
  const origin = Math.min(...spans.map((s) => s.startMs));
  const sorted = spans.map((s) => [s.startMs - origin, s.startMs - origin + s.activeS * 1000] as const).sort((a, b) => a[0] - b[0]);
  let totalMs = 0;
  let [from, to] = sorted[0] as readonly [number, number];
  for (const [a, b] of sorted.slice(1)) {
    if (a > to) {
      totalMs += to - from;
      [from, to] = [a, b];
    } else to = Math.max(to, b);
  }
  return (totalMs + to - from) / 1000;
}

/**
 * `load`: counts add; the achieved rate is the mean of the per-second counts over the union of
 * the shards' active time (each schedule placed on the wall clock by its `startedAt`): shards
 * started apart are not credited with the sum of their rates.
 */
function mergeLoad(placed: readonly PlacedLoad[], executor: string): LoadReport {
  const loads = placed.map((p) => p.load);
  const started = loads.reduce((n, l) => n + l.started, 0);
  const cancelled = loads.reduce((n, l) => n + (l.cancelled ?? 0), 0);
  const cut = loads.reduce((n, l) => n + (l.cut ?? 0), 0);
  // The grace period is a setting: named when every report that says one says the same.
  const graces = [...new Set(loads.flatMap((l) => (l.gracefulStopS === undefined ? [] : [l.gracefulStopS])))];
  const rates = loads.map((l) => l.targetRatePerS);
  const schedules = loads.map((l) => l.scheduleS).filter((x): x is number => x !== undefined);
  // As a single report: over its schedule when it has one, else over its duration.
  const windowS = round3(unionS(placed.map((p) => ({ startMs: p.startMs, activeS: p.load.scheduleS ?? p.durationS }))));
  return {
    executor,
    targetRatePerS: rates.every((r): r is number => r !== null) ? round3(rates.reduce((n, r) => n + r, 0)) : null,
    achievedRatePerS: windowS > 0 ? round3(started / windowS) : 0,
    started,
    dropped: loads.reduce((n, l) => n + l.dropped, 0),
    // Schedule lag keeps only a summary per shard: each statistic takes its worst shard.
    scheduleLagMs: worstPct(loads.map((l) => l.scheduleLagMs)),
    ...(cancelled > 0 ? { cancelled } : {}),
    ...(cut > 0 ? { cut, ...(graces.length === 1 ? { gracefulStopS: graces[0] as number } : {}) } : {}),
    ...(schedules.length === loads.length ? { scheduleS: round3(windowS) } : {}),
  };
}

function mergeSlo(slos: readonly Report['slo'][], objective: number): Report['slo'] {
  const good = slos.reduce((n, s) => n + s.good, 0);
  const bad = slos.reduce((n, s) => n + s.bad, 0);
  const excluded = slos.reduce((n, s) => n + s.excluded, 0);
  return sloSection({ good, bad, excluded }, objective);
}

/** Shards whose starts lie further apart than this did not run side by side (`flowgauge run --start-at` allows as much). */
const SHARDS_TOGETHER_MS = 1000;

/** `SHARDS_NOT_TOGETHER` when the shards' starts spread over more than a second (`shards` sorted by start). */
function notTogether(shards: readonly Named[]): RunWarning[] {
  const first = shards[0] as Named;
  const last = shards[shards.length - 1] as Named;
  const spreadMs = last.startMs - first.startMs;
  if (spreadMs <= SHARDS_TOGETHER_MS) return [];
  return [
    {
      code: 'SHARDS_NOT_TOGETHER',
      message:
        `the ${shards.length} shards started ${(spreadMs / 1000).toFixed(1)} s apart (${first.name} at ${first.report.startedAt}, ${last.name} at ${last.report.startedAt}): ` +
        `they did not run side by side, so the target never got the scenario's rate for the whole run; the achieved rate is over the time at least one shard ran. ` +
        `Start every shard at one instant with --start-at (or FLOWGAUGE_START_AT)`,
    },
  ];
}

function mergeWarnings(parts: readonly (readonly RunWarning[] | undefined)[]): RunWarning[] | undefined {
  const seen = new Map<string, RunWarning>();
  for (const w of parts.flatMap((p) => p ?? [])) seen.set(`${w.code}\u0000${w.message}`, w);
  return seen.size === 0 ? undefined : [...seen.values()];
}

/** `scenarios`: each scenario's section merged across the reports, like a report of its own. */
function mergeScenarioSections(shards: readonly Named[], startMs: number, objective: number): Record<string, ScenarioReport> | undefined {
  const names = [...new Set(shards.flatMap((s) => Object.keys(s.report.scenarios ?? {})))];
  if (names.length === 0) return undefined;
  const out: Record<string, ScenarioReport> = {};
  for (const name of names) {
    // A section reads like a report's top level: the same mergers apply to it.
    const parts: Named[] = shards.flatMap((s) => {
      const section = s.report.scenarios?.[name];
      return section === undefined ? [] : [{ name: `${s.name} scenarios.${name}`, startMs: s.startMs, report: section as unknown as Report }];
    });
    const histograms = mergeHistograms(parts);
    const section = (k: keyof ScenarioReport): unknown[] => parts.map((p) => (p.report as unknown as ScenarioReport)[k]);
    const iterations = mergeIterations(section('iterations') as (IterationsReport | undefined)[], histograms['iteration.duration']);
    const checks = mergeChecks(section('checks') as (ChecksReport | undefined)[]);
    const steps = stepsFrom(histograms);
    out[name] = {
      load: mergeLoad(
        shards.flatMap((s) => (s.report.scenarios?.[name] === undefined ? [] : [{ load: (s.report.scenarios[name] as ScenarioReport).load, startMs: s.startMs, durationS: s.report.durationS }])),
        (parts[0] as Named).report.load.executor,
      ),
      ops: mergeOps(parts, histograms),
      stream: mergeStream(parts, histograms),
      rateLimit: mergeRateLimit(parts, startMs, histograms),
      slo: mergeSlo(parts.map((p) => p.report.slo), objective),
      contractViolationTotals: mergeStructural(section('contractViolationTotals'), `scenarios.${name}.contractViolationTotals`) as ScenarioReport['contractViolationTotals'],
      ...(iterations !== undefined ? { iterations } : {}),
      ...(checks !== undefined ? { checks } : {}),
      ...(steps !== undefined ? { steps } : {}),
      histograms,
    };
  }
  return out;
}

/** The thresholds the shards were judged by, to be judged again on the whole. */
function shardThresholds(shards: readonly Named[]): { parsed: ParsedThreshold[]; unknown: ThresholdResult[] } {
  const seen = new Set<string>();
  const parsed: ParsedThreshold[] = [];
  const unknown: ThresholdResult[] = [];
  for (const s of shards) {
    for (const t of s.report.thresholds) {
      const id = JSON.stringify([t.metric, t.op, t.value]);
      if (seen.has(id)) continue;
      seen.add(id);
      // Read back by the grammar, scope and all (`pro:availability` is judged on scenarios.pro), implicit kept.
      const threshold = thresholdOfResult(t);
      // A key this version cannot read is a claim it cannot check: it fails, as an unobserved one does.
      if (threshold === undefined) unknown.push({ metric: t.metric, op: t.op, value: t.value, observed: null, passed: false });
      else parsed.push(threshold);
    }
  }
  return { parsed, unknown };
}

/**
 * Merges the reports of the shards of one run. Throws `FlowgaugeError` (`FG_REPORT_INVALID`)
 * when there is nothing to merge, when the reports are of another schema or of different
 * scenarios, executors, objectives or slice lengths, or when a histogram cannot be read.
 */
export function mergeReports(reports: readonly Report[], options: MergeOptions = {}): Report {
  if (reports.length === 0) fail('nothing to merge: give the report.json of every shard');
  const shards: Named[] = reports
    .map((report, i) => {
      const name = options.names?.[i] ?? `report ${i + 1}`;
      if (report.schema !== REPORT_SCHEMA) fail(`${name}: schema ${JSON.stringify(report.schema)} is not ${REPORT_SCHEMA}`);
      const startMs = Date.parse(report.startedAt);
      if (!Number.isFinite(startMs) || !Number.isFinite(Date.parse(report.endedAt))) fail(`${name}: startedAt/endedAt are not timestamps`);
      return { report, name, startMs };
    })
    .sort((a, b) => a.startMs - b.startMs);
  const scenario = checkSame(shards, 'the scenario', (r) => r.scenario);
  const executor = checkSame(shards, 'the executor', (r) => r.load.executor);
  const objective = checkSame(shards, 'the SLO objective', (r) => r.slo.objective);
  const sliceMs = checkSame(shards, 'the slice length (sliceMs)', (r) => r.sliceMs ?? 1000);

  const startMs = Math.min(...shards.map((s) => s.startMs));
  const endMs = Math.max(...shards.map((s) => Date.parse(s.report.endedAt)));
  // First start to last end, each end from the shard's own durationS (startedAt/endedAt are cut
  // to the ms, so their difference can be a ms off it: one report merges back unchanged).
  const durationS = round3(Math.max(0, ...shards.map((s) => s.startMs - startMs + s.report.durationS * 1000)) / 1000);
  const histograms = mergeHistograms(shards);
  const violations = mergeViolations(shards);
  const baseUrls = [...new Set(shards.map((s) => s.report.target.baseUrl))];
  const abortedBy = shards.find((s) => s.report.abortedBy !== undefined)?.report.abortedBy;
  const interrupted = shards.some((s) => s.report.interrupted);
  const part = <K extends keyof Report>(k: K): Report[K][] => shards.map((s) => s.report[k]);

  // Every field of report@1 is named here: a section added to the report later does not
  // compile until merge says how it combines, so merge cannot drop it silently.
  const merged: { readonly [K in ReportField]: Report[K] | undefined } = {
    schema: REPORT_SCHEMA,
    scenario,
    interrupted,
    target: { baseUrl: baseUrls.join(', '), embedded: shards.every((s) => s.report.target.embedded) },
    startedAt: new Date(startMs).toISOString(),
    endedAt: new Date(endMs).toISOString(),
    durationS,
    load: mergeLoad(shards.map((s) => ({ load: s.report.load, startMs: s.startMs, durationS: s.report.durationS })), executor),
    ops: mergeOps(shards, histograms),
    stream: mergeStream(shards, histograms),
    rateLimit: mergeRateLimit(shards, startMs, histograms),
    slo: mergeSlo(part('slo'), objective),
    thresholds: [],
    passed: true,
    abortedBy,
    verdict: undefined,
    contractViolations: violations.entries,
    contractViolationTotals: violations.totals,
    sliceMs,
    slices: mergeSlices(shards, startMs, sliceMs),
    histograms,
    notifications: mergeStructural(part('notifications'), 'notifications') as Report['notifications'],
    asyncRuns: mergeStructural(part('asyncRuns'), 'asyncRuns') as Report['asyncRuns'],
    audit: mergeStructural(part('audit'), 'audit') as Report['audit'],
    iterations: mergeIterations(part('iterations'), histograms['iteration.duration']),
    checks: mergeChecks(part('checks')),
    steps: stepsFrom(histograms),
    scenarios: mergeScenarioSections(shards, startMs, objective),
    warnings: mergeWarnings([...part('warnings'), notTogether(shards)]),
  };
  const whole = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as unknown as Report;
  const { parsed, unknown } = shardThresholds(shards);
  const judged = evaluateReportThresholds(whole, parsed);
  const thresholds = [...judged.thresholds, ...unknown];
  return { ...judged, thresholds, passed: thresholds.every((t) => t.passed) };
}
