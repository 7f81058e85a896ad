/**
 * Building report@1 from a run's state: the collectors' snapshot, the executors' counts and
 * journey accounting, projected into the contract's sections (`model.ts` holds the types).
 * Pure: wall-clock times come in as arguments.
 */
import { urlWithoutSecrets } from '../api/redact.js';
import type { CollectorSnapshot } from '../collect/collectors.js';
import type { Pct } from '../collect/histogram.js';
import type { IterationStatsSnapshot } from '../collect/iteration-stats.js';
import { errorBudget } from '../slo/budget.js';
import type { ThresholdResult } from '../slo/thresholds.js';
import { REPORT_SCHEMA, type LoadReport, type RateLimitReport, type Report, type RunWarning, type ScenarioReport, type SloReport } from './model.js';
import { reportVerdict } from './verdict.js';

/** What `buildReport` needs. */
export interface BuildReportInput {
  readonly scenario: string;
  readonly interrupted: boolean;
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /** Wall-clock ms since the Unix epoch. */
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  readonly load: {
    readonly executor: string;
    readonly targetRatePerS: number | null;
    readonly started: number;
    readonly dropped: number;
    readonly scheduleLagMs: Pct;
    /** The schedule's own length in s; without it the achieved rate is over the whole duration. */
    readonly scheduleS?: number;
    readonly cancelled?: number;
    /** Requests still open when the grace period ended, within their own deadline. */
    readonly cut?: number;
    /** The grace period that ended, in s (written with `cut`). */
    readonly gracefulStopS?: number;
  };
  readonly snapshot: CollectorSnapshot;
  /** Journey accounting; its sections appear only when journeys ran. */
  readonly iterations?: IterationStatsSnapshot | undefined;
  /** Sections of each scenario of a run of several. */
  readonly scenarios?: Readonly<Record<string, ScenarioReport>>;
  readonly warnings?: readonly RunWarning[];
  readonly abortedBy?: string;
  /** Results to embed; evaluate them against this report with `evaluateReportThresholds`. */
  readonly thresholds: readonly ThresholdResult[];
  /** Defaults to the snapshot's objective. */
  readonly objective?: number;
}

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/**
 * Removes credentials and the query string from a URL (a token pasted into a URL must not
 * reach a report). Unparseable input is cut at the first `?` and stripped of `user:pass@`.
 */
export function redactUrl(url: string): string {
  const u = urlWithoutSecrets(url);
  if (u === undefined) return (url.split(/[?#]/)[0] ?? '').replace(/\/\/[^/@]*@/, '//');
  const out = u.toString();
  // URL adds a `/` to a bare origin; keep the user's spelling.
  const path = url.split(/[?#]/)[0] ?? '';
  return !path.endsWith('/') && out.endsWith('/') ? out.slice(0, -1) : out;
}

/** `load` of a report or a scenario section: the achieved rate over the schedule's own window. */
export function loadSection(load: BuildReportInput['load'], durationS: number): LoadReport {
  // Rounded before dividing, so the report's own rate and scheduleS agree (and merge gives them back).
  const scheduleS = load.scheduleS === undefined ? undefined : round(load.scheduleS, 3);
  const windowS = scheduleS ?? durationS;
  return {
    executor: load.executor,
    targetRatePerS: load.targetRatePerS,
    achievedRatePerS: windowS > 0 ? round(load.started / windowS, 3) : 0,
    started: load.started,
    dropped: load.dropped,
    scheduleLagMs: load.scheduleLagMs,
    ...(load.cancelled !== undefined && load.cancelled > 0 ? { cancelled: load.cancelled } : {}),
    ...(load.cut !== undefined && load.cut > 0 ? { cut: load.cut, ...(load.gracefulStopS !== undefined ? { gracefulStopS: load.gracefulStopS } : {}) } : {}),
    ...(scheduleS !== undefined ? { scheduleS } : {}),
  };
}

/** `slo` from SLI counts. */
export function sloSection(totals: { readonly good: number; readonly bad: number; readonly excluded: number }, objective: number): SloReport {
  const budget = errorBudget({ good: totals.good, bad: totals.bad, objective });
  return {
    objective,
    good: totals.good,
    bad: totals.bad,
    excluded: totals.excluded,
    availability: budget.availability ?? null,
    errorRatio: budget.errorRatio,
    errorBudgetConsumed: budget.budgetConsumed,
    burnRate: budget.burnRate,
    allowedBadEvents: budget.allowedBadEvents,
  };
}

/**
 * `rateLimit`: the analyser's findings with the latency of the 429 answers (from the
 * `ratelimit.latency` histogram, which `ops.*.latencyMs` leaves out).
 */
function rateLimitSection(s: CollectorSnapshot): RateLimitReport {
  return { ...s.rateLimit, latencyMs: s.rateLimitLatencyMs };
}

/** The journey sections (`iterations`, `checks`, `steps`), present only when journeys ran. */
function journeySections(it: IterationStatsSnapshot | undefined): Pick<ScenarioReport, 'iterations' | 'checks' | 'steps'> {
  if (it === undefined) return {};
  return {
    iterations: it.iterations,
    ...(Object.keys(it.checks).length > 0 ? { checks: it.checks } : {}),
    ...(Object.keys(it.steps).length > 0 ? { steps: it.steps } : {}),
  };
}

/** One scenario's section of a run of several. */
export function buildScenarioSection(input: {
  readonly load: BuildReportInput['load'];
  readonly durationS: number;
  readonly snapshot: CollectorSnapshot;
  readonly iterations: IterationStatsSnapshot | undefined;
  readonly objective: number;
}): ScenarioReport {
  const s = input.snapshot;
  const { histograms: _streamHistograms, ...stream } = s.stream;
  return {
    load: loadSection(input.load, input.durationS),
    ops: s.ops,
    stream,
    rateLimit: rateLimitSection(s),
    slo: sloSection(s.totals, input.objective),
    contractViolationTotals: s.contractViolationTotals,
    ...journeySections(input.iterations),
    histograms: { ...s.histograms, ...(input.iterations?.histograms ?? {}) },
  };
}

/** Builds the report from a collector snapshot and what the run knows. */
export function buildReport(input: BuildReportInput): Report {
  const s = input.snapshot;
  const objective = input.objective ?? s.objective;
  const durationS = round(Math.max(0, input.endedAtMs - input.startedAtMs) / 1000, 3);
  const { histograms: _streamHistograms, ...stream } = s.stream;
  const passed = input.thresholds.every((t) => t.passed);
  return {
    schema: REPORT_SCHEMA,
    scenario: input.scenario,
    interrupted: input.interrupted,
    target: { baseUrl: redactUrl(input.target.baseUrl), embedded: input.target.embedded },
    startedAt: new Date(input.startedAtMs).toISOString(),
    endedAt: new Date(input.endedAtMs).toISOString(),
    durationS,
    load: loadSection(input.load, durationS),
    ops: s.ops,
    stream,
    rateLimit: rateLimitSection(s),
    slo: sloSection(s.totals, objective),
    thresholds: input.thresholds,
    passed,
    ...(input.abortedBy !== undefined ? { abortedBy: input.abortedBy } : {}),
    verdict: reportVerdict({ interrupted: input.interrupted, abortedBy: input.abortedBy, passed }),
    contractViolations: s.contractViolations,
    contractViolationTotals: s.contractViolationTotals,
    sliceMs: s.sliceMs,
    slices: s.slices,
    histograms: { ...s.histograms, ...(input.iterations?.histograms ?? {}) },
    ...journeySections(input.iterations),
    ...(input.scenarios !== undefined ? { scenarios: input.scenarios } : {}),
    ...(input.warnings !== undefined && input.warnings.length > 0 ? { warnings: input.warnings } : {}),
  };
}
