/**
 * The collectors of a run: every sample goes through `observe`, which judges it (throttle and
 * SLI class) and records it everywhere it counts. `snapshot` returns everything the report
 * needs; `live` is the cheap view for once-a-second progress.
 *
 * Latency population: every latency figure (per op, all ops, per slice) is of the answers the
 * service served, i.e. every sample whose status is not 429; connection errors, timeouts and
 * 5xx stay in. A 429 still counts as a request of its op; its latency goes to `ratelimit.latency`.
 */
import type { ByOp, OpKey } from '../core/ops.js';
import type { RequestSample, ThrottleClass, Verdict } from '../core/types.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertObjective, DEFAULT_OBJECTIVE } from '../slo/budget.js';
import { classifySli } from '../slo/sli.js';
import { createContractViolationTable } from './contract-violations.js';
import type { ContractViolationEntry, ContractViolationTotals } from './contract-violations.js';
import { createLatencyHistogram, encodeHistogram, recordNs, toPct } from './histogram.js';
import type { Pct } from './histogram.js';
import { createOpStats } from './op-stats.js';
import type { OpSnapshot, OpStats } from './op-stats.js';
import { createRateLimitAnalyser } from './rate-limit-analyser.js';
import type { RateLimitAnalyser, RateLimitAnalyserOptions, RateLimitSnapshot, SetupAnswer } from './rate-limit-analyser.js';
import { createSliceTable } from './slices.js';
import type { SliceEntry } from './slices.js';
import { createStreamCollector } from './stream-collector.js';
import { createPromptLengthStats, defaultPromptBands, type PromptLengthSection } from './prompt-length.js';
import type { StreamSnapshot } from './stream-collector.js';

/** Options of `createCollectors`. */
export interface CollectorsOptions {
  /** Monotonic ns of the run's start: slices and positions are relative to it. */
  readonly runStartNs: number;
  /** Slice length in ms (default 1000). */
  readonly sliceMs?: number;
  /** Availability objective, 0–1 exclusive (default 0.999). */
  readonly objective?: number;
  /** Wall-clock ms at `runStartNs`; lets epoch Reset values time the recovery after throttling. */
  readonly runStartWallMs?: number;
  /** How long after a slice ends its histograms stay live before being serialised (default 10 000 ms; longer once 64 requests have taken longer, up to 60 s). */
  readonly sliceCloseLagMs?: number;
  /** See `RateLimitAnalyserOptions.inFlight`. */
  readonly inFlight?: () => number;
  /** See `RateLimitAnalyserOptions.sharers` (default 1). */
  readonly sharers?: number;
  /** The scenario these collectors are of, named in the token's rate-limit evidence. */
  readonly unit?: string;
  /** See `RateLimitAnalyserOptions.contract`. */
  readonly contract?: RateLimitAnalyserOptions['contract'];
  /**
   * The token's analyser, when other collectors send with the same token (scenarios of one
   * tenant): the service keeps one window for them all. Otherwise these collectors make their own.
   */
  readonly rateLimit?: RateLimitAnalyser;
  /** Distinct contract violations kept (default 200). */
  readonly maxContractViolations?: number;
  /** Prompt-length bands (lower bounds) of each unit (default `defaultPromptBands`). */
  readonly promptBands?: (unit: string) => readonly number[];
}

/** Options with every default filled. */
export interface ResolvedCollectorsOptions {
  readonly runStartNs: number;
  readonly sliceMs: number;
  readonly objective: number;
  readonly runStartWallMs: number | undefined;
  readonly sliceCloseLagMs: number;
  readonly inFlight: (() => number) | undefined;
  readonly sharers: number;
  readonly unit: string | undefined;
  readonly maxContractViolations: number;
  readonly promptBands: (unit: string) => readonly number[];
}

/** Everything report/ needs, at one instant. */
export interface CollectorSnapshot {
  readonly runStartNs: number;
  readonly nowNs: number;
  readonly sliceMs: number;
  readonly objective: number;
  readonly totals: {
    readonly requests: number;
    readonly good: number;
    readonly bad: number;
    readonly excluded: number;
    /** Requests the end of the grace period cut, unjudged (within their own deadline). */
    readonly cut: number;
  };
  /** Operations that saw at least one sample. */
  readonly ops: ByOp<OpSnapshot>;
  readonly stream: StreamSnapshot & PromptLengthSection;
  readonly rateLimit: RateLimitSnapshot;
  /** Latency of the 429 answers (report.json `rateLimit.latencyMs`); `count` is the 429s seen. */
  readonly rateLimitLatencyMs: Pct;
  readonly contractViolations: ContractViolationEntry[];
  readonly contractViolationTotals: ContractViolationTotals;
  readonly slices: SliceEntry[];
  /**
   * Serialised histograms: `<op>.latency` for each op seen (served answers), `stream.<timing>`
   * when streams were seen, `ratelimit.latency` (the 429 answers) when any 429 was.
   */
  readonly histograms: Record<string, string>;
}

/** The figures thresholds read, at one instant, with nothing serialised. */
export interface CollectorView {
  readonly totals: CollectorSnapshot['totals'];
  readonly ops: CollectorSnapshot['ops'];
  readonly stream: StreamSnapshot;
  /** With the 429s' latency, as report.json `rateLimit` has it. */
  readonly rateLimit: RateLimitSnapshot & { readonly latencyMs: Pct };
  readonly contractViolationTotals: ContractViolationTotals;
}

/** The cheap live view: no serialisation, no per-op detail. */
export interface LiveStats {
  /** ms from the run's start to `nowNs`. */
  readonly elapsedMs: number;
  readonly requests: number;
  readonly good: number;
  readonly bad: number;
  readonly excluded: number;
  /** Samples that carried an error code. */
  readonly errors: number;
  readonly responses429: number;
  /** Completed requests per second over the run so far. */
  readonly ratePerS: number;
  /** Completed requests per second over the last `recentWindowS` whole seconds. */
  readonly recentRatePerS: number;
  readonly recentWindowS: number;
  /** Latency of all operations together (ms), of the served answers (no 429). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** good / (good + bad); null before any. */
  readonly availability: number | null;
}

/** The collectors. */
export interface Collectors {
  readonly options: ResolvedCollectorsOptions;
  /**
   * Judges and records one sample; copies what it keeps. With `judged`, records the sample
   * under a verdict made elsewhere (a run's total over several scenarios, each its own judge).
   */
  observe(sample: RequestSample, judged?: Verdict): Verdict;
  /** See `RateLimitAnalyser.observeSetup`: the client's setup requests, for the rate-limit windows only. */
  observeSetup(answer: SetupAnswer): void;
  /**
   * A request the end of the grace period cut within its own deadline: counted as cut (unjudged),
   * its answer (if its head came) placed in the rate-limit windows, and what was measured of a
   * stream (its first token, …) recorded.
   */
  observeCut(sample: RequestSample): void;
  snapshot(nowNs: number): CollectorSnapshot;
  /** What thresholds read, without serialising any histogram (for live abort-on-fail checks). */
  view(): CollectorView;
  live(nowNs: number): LiveStats;
}

const RECENT_S = 5;

/** Resolves options, throwing `InvalidArgumentError` on nonsense. */
export function resolveCollectorsOptions(options: CollectorsOptions): ResolvedCollectorsOptions {
  const resolved: ResolvedCollectorsOptions = {
    runStartNs: options.runStartNs,
    sliceMs: options.sliceMs ?? 1000,
    objective: options.objective ?? DEFAULT_OBJECTIVE,
    runStartWallMs: options.runStartWallMs,
    sliceCloseLagMs: options.sliceCloseLagMs ?? 10_000,
    inFlight: options.inFlight,
    sharers: options.sharers ?? 1,
    unit: options.unit,
    maxContractViolations: options.maxContractViolations ?? 200,
    promptBands: options.promptBands ?? defaultPromptBands,
  };
  if (!Number.isFinite(resolved.runStartNs)) throw new InvalidArgumentError('runStartNs must be a finite number');
  if (!(Number.isFinite(resolved.sliceMs) && resolved.sliceMs > 0)) {
    throw new InvalidArgumentError('sliceMs must be a positive number');
  }
  if (!(resolved.sliceCloseLagMs >= 0)) throw new InvalidArgumentError('sliceCloseLagMs must be ≥ 0');
  if (!(Number.isInteger(resolved.maxContractViolations) && resolved.maxContractViolations >= 0)) {
    throw new InvalidArgumentError('maxContractViolations must be a non-negative integer');
  }
  assertObjective(resolved.objective);
  return resolved;
}

/** Creates the collectors of one run. */
export function createCollectors(options: CollectorsOptions): Collectors {
  const o = resolveCollectorsOptions(options);
  const ops = new Map<OpKey, OpStats>();
  const all = createLatencyHistogram();
  /** Latency of the 429 answers: apart from `all` and the ops' (one population for latency). */
  const refused = createLatencyHistogram();
  const stream = createStreamCollector();
  const prompts = createPromptLengthStats(o.promptBands);
  // With the token's analyser shared, this one only counts (it keeps no evidence).
  const own = createRateLimitAnalyser({
    runStartNs: o.runStartNs,
    sharers: o.sharers,
    ...(options.rateLimit === undefined ? {} : { maxEvidence: 0 }),
    ...(options.contract === undefined ? {} : { contract: options.contract }),
    ...(o.inFlight === undefined ? {} : { inFlight: o.inFlight }),
    ...(o.runStartWallMs === undefined ? {} : { runStartWallMs: o.runStartWallMs }),
  });
  // With the token's analyser shared, it judges (one window for every scenario of the token) and
  // these collectors' own one only counts this scenario's answers: its figures are its own, its
  // windows and findings the token's.
  const shared = options.rateLimit;
  const rateLimit = {
    observe: (sample: RequestSample, judged?: ThrottleClass): ThrottleClass =>
      shared === undefined || judged !== undefined ? own.observe(sample, judged, o.unit) : own.observe(sample, shared.observe(sample, undefined, o.unit)),
    observeSetup: (answer: SetupAnswer): void => (shared ?? own).observeSetup(answer),
    snapshot: (withEvidence = true): RateLimitSnapshot => {
      const mine = own.snapshot(withEvidence);
      if (shared === undefined) return mine;
      const token = shared.snapshot(withEvidence);
      return {
        ...token,
        responses: mine.responses,
        responses429: mine.responses429,
        expected429: mine.expected429,
        premature429: mine.premature429,
        uncertain429: mine.uncertain429 ?? 0,
        headerless429: mine.headerless429 ?? 0,
        gateway429: mine.gateway429 ?? 0,
        byOp: mine.byOp ?? {},
        first429: mine.first429,
      };
    },
  };
  const violations = createContractViolationTable(o.maxContractViolations);
  const slices = createSliceTable({ runStartNs: o.runStartNs, sliceMs: o.sliceMs, closeLagMs: o.sliceCloseLagMs });
  const totals = { requests: 0, good: 0, bad: 0, excluded: 0, cut: 0 };
  let errors = 0;
  let responses429 = 0;
  // Completions per whole second (by end time) for the recent rate: a small ring.
  const recent = new Float64Array(RECENT_S + 2);
  let recentSecond = -1;

  const countCompletion = (endNs: number): void => {
    const sec = Math.floor((endNs - o.runStartNs) / 1e9);
    if (sec > recentSecond) {
      for (let s = Math.max(recentSecond + 1, sec - recent.length + 1); s <= sec; s++) recent[s % recent.length] = 0;
      recentSecond = sec;
    }
    if (sec >= 0 && sec > recentSecond - recent.length) recent[sec % recent.length] = (recent[sec % recent.length] as number) + 1;
  };

  return {
    options: o,
    observe(sample, judged) {
      // Another origin's answers say nothing of the service's limiter.
      const throttle = sample.otherOrigin === true ? 'none' : rateLimit.observe(sample, judged?.throttle);
      const sli = judged?.sli ?? classifySli(sample, throttle);
      let op = ops.get(sample.op);
      if (op === undefined) ops.set(sample.op, (op = createOpStats()));
      op.observe(sample, sli);
      if (sample.status === 429) {
        recordNs(refused, sample.endNs - sample.intendedNs);
        responses429++;
      } else recordNs(all, sample.endNs - sample.intendedNs);
      stream.observe(sample);
      if (sample.inputTokens !== undefined) prompts.observe(sample);
      if (sample.violations.length > 0) violations.add(sample.violations);
      slices.observe(sample, sli);
      totals.requests++;
      totals[sli]++;
      if (sample.errorCode !== undefined) errors++;
      countCompletion(sample.endNs);
      return judged ?? { sli, throttle };
    },

    observeSetup(answer) {
      rateLimit.observeSetup(answer);
    },

    observeCut(sample) {
      totals.cut++;
      if (sample.otherOrigin !== true) rateLimit.observeSetup(sample);
      stream.observeCut(sample);
    },

    snapshot(nowNs) {
      slices.advance(nowNs);
      const opSnapshots: ByOp<OpSnapshot> = {};
      const histograms: Record<string, string> = {};
      for (const [name, stats] of ops) {
        opSnapshots[name] = stats.snapshot();
        histograms[`${name}.latency`] = stats.encoded();
        Object.assign(histograms, stats.phaseHistograms(name));
      }
      const streamSnapshot = stream.snapshot();
      if (streamSnapshot.count > 0) Object.assign(histograms, streamSnapshot.histograms);
      Object.assign(histograms, prompts.histograms());
      if (refused.totalCount > 0) histograms['ratelimit.latency'] = encodeHistogram(refused);
      return {
        runStartNs: o.runStartNs,
        nowNs,
        sliceMs: o.sliceMs,
        objective: o.objective,
        totals: { ...totals },
        ops: opSnapshots,
        stream: { ...streamSnapshot, ...prompts.section() },
        rateLimit: rateLimit.snapshot(),
        rateLimitLatencyMs: toPct(refused),
        contractViolations: violations.entries(),
        contractViolationTotals: violations.totals(),
        slices: slices.entries(),
        histograms,
      };
    },

    view() {
      const opSnapshots: ByOp<OpSnapshot> = {};
      for (const [name, stats] of ops) opSnapshots[name] = stats.snapshot();
      return {
        totals: { ...totals },
        ops: opSnapshots,
        stream: stream.snapshot(false),
        rateLimit: { ...rateLimit.snapshot(false), latencyMs: toPct(refused) },
        contractViolationTotals: violations.totals(),
      };
    },

    live(nowNs) {
      const elapsedMs = Math.max(0, (nowNs - o.runStartNs) / 1e6);
      const nowSec = Math.floor((nowNs - o.runStartNs) / 1e9);
      // Whole seconds before the current one, that the ring still holds.
      let recentCount = 0;
      let windowS = 0;
      for (let s = nowSec - 1; s >= Math.max(0, nowSec - RECENT_S); s--) {
        windowS++;
        if (s <= recentSecond && s > recentSecond - recent.length) recentCount += recent[s % recent.length] as number;
      }
      const pct: Pct = toPct(all);
      const judged = totals.good + totals.bad;
      return {
        elapsedMs,
        ...totals,
        errors,
        responses429,
        ratePerS: elapsedMs > 0 ? totals.requests / (elapsedMs / 1000) : 0,
        recentRatePerS: windowS > 0 ? recentCount / windowS : 0,
        recentWindowS: windowS,
        p50Ms: pct.p50,
        p99Ms: pct.p99,
        availability: judged > 0 ? totals.good / judged : null,
      };
    },
  };
}
