/**
 * The rate-limit analyser: measures, rather than assumes, how the service limits. It groups
 * responses into the server's windows, judges every 429 as expected or premature (that verdict
 * feeds the SLI), infers what Reset means, counts header problems, and times the recovery
 * after the first rejected window. Pure: times come from the samples.
 *
 * Windows. A response with a Reset header belongs to the window that Reset names: for an epoch
 * value the value itself; for a delta, the instant it points at (arrival + delta), matched
 * within 1.5 s because deltas are whole seconds. Keying by Reset rather than by arrival order
 * keeps late responses (a long stream observed seconds after it was admitted) in the window
 * that admitted them. Without a Reset header, a response joins the newest window unless its
 * Remaining jumps back up (by more than half the limit), which starts a new one.
 *
 * Expected or premature. A 429 is expected when the client had used up the advertised limit
 * in that window, seen from any of: accepted responses in the window ≥ limit − slack; the
 * lowest Remaining of an accepted response in the window ≤ slack; or the most recently sent
 * accepted request (sent before this one) saw Remaining ≤ slack. `slack` (default 5 % of the
 * limit, at least 1) absorbs admitted requests still in flight when the 429 arrived — their
 * Remaining is not known yet. Otherwise, and always when no limit was ever advertised (the
 * client cannot have been over a limit nobody stated), the 429 is premature.
 */
import type { RateLimitInfo, RequestSample, ThrottleClass } from '../core/types.js';
import { InvalidArgumentError } from '../core/errors.js';
import { checkHeaders, countViolation, usable } from './rate-limit-headers.js';
import type { HeaderViolationCounts } from './rate-limit-headers.js';
import { EPOCH_MS_MIN, EPOCH_SECONDS_MIN, createResetSemanticsTracker } from './reset-semantics.js';
import type { ResetSemantics } from './reset-semantics.js';

/** Options of `createRateLimitAnalyser`. */
export interface RateLimitAnalyserOptions {
  /** Monotonic ns of the run's start (positions of the first 429 are relative to it). */
  readonly runStartNs: number;
  /** Wall-clock ms at `runStartNs`: places epoch Reset values on the monotonic clock (recovery time). */
  readonly runStartWallMs?: number;
  /** Share of the limit a 429 may leave unused and still count as expected (default 0.05). */
  readonly prematureSlack?: number;
  /** Windows kept for the report, newest last (default 1000). */
  readonly maxWindows?: number;
}

/** One rate-limit window as report.json shows it. */
export interface RateLimitWindow {
  /** Raw Reset header of the window's first response (null when absent). */
  readonly reset: string | null;
  readonly accepted: number;
  readonly rejected: number;
  /** Limit advertised in the window (null when absent). */
  readonly limit: number | null;
  /** Lowest Remaining of an accepted response in the window (null when none). */
  readonly minRemaining: number | null;
}

/** Everything the analyser found, for report.json `rateLimit`. */
export interface RateLimitSnapshot {
  /** The most common X-RateLimit-Limit value; null when none arrived. */
  readonly advertisedLimit: number | null;
  readonly resetSemantics: ResetSemantics;
  /** Responses analysed (requests that got any HTTP response). */
  readonly responses: number;
  readonly responses429: number;
  readonly expected429: number;
  readonly premature429: number;
  /**
   * 429s that carried none of the `X-RateLimit-*` headers, which the service sends on every
   * answer: something in front of it (a gateway's `limit_req`, a proxy) refused them. Optional
   * for reports written before it was counted.
   */
  readonly headerless429?: number;
  /** Counts by `HeaderViolationKind`. */
  readonly headerViolations: Record<string, number>;
  readonly windows: RateLimitWindow[];
  /** Older windows not kept. */
  readonly windowsDropped: number;
  /**
   * The first 429 observed: `index` is its 1-based position among requests by send time, `atMs`
   * the time it was sent, from the run's start. Null when no 429 arrived.
   */
  readonly first429: { readonly index: number; readonly atMs: number } | null;
  /**
   * From the reset of the first window that rejected requests to the first accepted response of
   * a later window, in ms (at the 1 s resolution of Reset). Null when not measurable.
   */
  readonly recoveryMs: number | null;
}

/** The analyser. */
export interface RateLimitAnalyser {
  /** Analyses one sample (copies what it keeps) and judges it if it is a 429. */
  /**
   * Records a response and judges a 429. `judged` takes a judgement made elsewhere (a run of
   * several tenants judges each against its own limit; the whole run only adds them up).
   */
  observe(sample: RequestSample, judged?: ThrottleClass): ThrottleClass;
  snapshot(): RateLimitSnapshot;
}

interface Win {
  readonly seq: number;
  readonly key: number | undefined;
  readonly epoch: boolean;
  readonly resetRaw: string | undefined;
  readonly resetAtNs: number | undefined;
  accepted: number;
  rejected: number;
  limit: number | undefined;
  minAccRemaining: number | undefined;
  lastStartNs: number;
  lastStartRemaining: number | undefined;
}

/** How many recent windows a response may belong to (late responses are seconds late, not minutes). */
const MATCH_DEPTH = 16;
/** Send times kept before the first 429, to place it by send order. */
const START_RING = 4096;
/** Distinct Limit values tallied (beyond that, new values are ignored for the mode). */
const MAX_LIMIT_VALUES = 32;

/** Creates an analyser. */
export function createRateLimitAnalyser(options: RateLimitAnalyserOptions): RateLimitAnalyser {
  const slackShare = options.prematureSlack ?? 0.05;
  const maxWindows = options.maxWindows ?? 1000;
  if (!(slackShare >= 0 && slackShare < 1)) throw new InvalidArgumentError('prematureSlack must be in [0, 1)');
  if (!(Number.isInteger(maxWindows) && maxWindows > 0)) throw new InvalidArgumentError('maxWindows must be a positive integer');
  const { runStartNs, runStartWallMs } = options;

  const windows: Win[] = [];
  let windowsDropped = 0;
  let seq = 0;
  const violations: HeaderViolationCounts = new Map();
  const limits = new Map<number, number>();
  const semantics = createResetSemanticsTracker();
  let responses = 0;
  let responses429 = 0;
  let expected429 = 0;
  let premature429 = 0;
  let headerless429 = 0;
  let lastAccepted: { startNs: number; remaining: number | undefined } | undefined;

  // Placing the first 429 by send order: send times of recent samples until it arrives.
  const ring = new Float64Array(START_RING);
  let ringCount = 0;
  let first429: { startNs: number; index: number } | undefined;

  // Recovery after the first rejected window.
  let rejectedWin: Win | undefined;
  let recoveryObsNs: number | undefined;

  const newWindow = (
    key: number | undefined,
    epoch: boolean,
    info: RateLimitInfo | undefined,
    resetAtNs: number | undefined,
  ): Win => {
    const w: Win = {
      seq: seq++,
      key,
      epoch,
      resetRaw: info?.raw.reset,
      resetAtNs,
      accepted: 0,
      rejected: 0,
      limit: undefined,
      minAccRemaining: undefined,
      lastStartNs: -Infinity,
      lastStartRemaining: undefined,
    };
    windows.push(w);
    if (windows.length > maxWindows) {
      windows.shift();
      windowsDropped++;
    }
    return w;
  };

  const wallToNs = (wallMs: number): number | undefined =>
    runStartWallMs === undefined ? undefined : runStartNs + (wallMs - runStartWallMs) * 1e6;

  const windowOf = (
    info: RateLimitInfo | undefined,
    reset: number | undefined,
    remaining: number | undefined,
    arrivalNs: number,
  ): Win => {
    if (reset !== undefined) {
      const epoch = reset > EPOCH_SECONDS_MIN;
      const key = reset >= EPOCH_MS_MIN ? reset / 1000 : epoch ? reset : arrivalNs / 1e9 + reset;
      const tolerance = epoch ? 0.5 : 1.5;
      for (let i = windows.length - 1; i >= Math.max(0, windows.length - MATCH_DEPTH); i--) {
        const w = windows[i] as Win;
        if (w.key !== undefined && w.epoch === epoch && Math.abs(w.key - key) <= tolerance) return w;
      }
      const resetAtNs = epoch ? wallToNs(key * 1000) : arrivalNs + reset * 1e9;
      return newWindow(key, epoch, info, resetAtNs);
    }
    const current = windows[windows.length - 1];
    if (current === undefined) return newWindow(undefined, false, info, undefined);
    const limit = current.limit ?? advertised();
    const jump = limit === undefined ? 0 : Math.max(1, Math.floor(limit / 2));
    if (remaining !== undefined && current.minAccRemaining !== undefined && remaining - current.minAccRemaining > jump) {
      return newWindow(undefined, false, info, undefined);
    }
    return current;
  };

  function advertised(): number | undefined {
    let best: number | undefined;
    let bestCount = 0;
    for (const [value, count] of limits) {
      if (count > bestCount) {
        best = value;
        bestCount = count;
      }
    }
    return best;
  }

  const judge429 = (w: Win, startNs: number): ThrottleClass => {
    const limit = w.limit ?? advertised();
    if (limit === undefined) return 'premature';
    const slack = Math.max(1, Math.ceil(limit * slackShare));
    if (w.accepted >= limit - slack) return 'expected';
    if (w.minAccRemaining !== undefined && w.minAccRemaining <= slack) return 'expected';
    const last = lastAccepted;
    if (last !== undefined && last.startNs < startNs && last.remaining !== undefined && last.remaining <= slack) return 'expected';
    return 'premature';
  };

  const trackSendOrder = (startNs: number): void => {
    if (first429 === undefined) {
      ring[ringCount % START_RING] = startNs;
      ringCount++;
    } else if (startNs < first429.startNs) {
      first429.index++;
    }
  };

  const placeFirst429 = (startNs: number): void => {
    // Samples that left the ring were observed ≥ 4096 samples ago: they were surely sent earlier.
    let before = Math.max(0, ringCount - START_RING);
    const n = Math.min(ringCount, START_RING);
    for (let i = 0; i < n; i++) if ((ring[i] as number) < startNs) before++;
    first429 = { startNs, index: before + 1 };
  };

  return {
    observe(sample, judged) {
      const { status, startNs } = sample;
      const info = sample.rateLimit;
      if (status === 0) {
        trackSendOrder(startNs);
        return 'none';
      }
      responses++;
      const arrivalNs = sample.headersNs ?? sample.endNs;
      const limit = usable(info?.limit);
      const remaining = usable(info?.remaining);
      const reset = usable(info?.reset);
      if (info !== undefined) checkHeaders(info, status, violations);
      else for (const f of ['limit', 'remaining', 'reset'] as const) countViolation(violations, `missing-${f}`);
      if (limit !== undefined && (limits.has(limit) || limits.size < MAX_LIMIT_VALUES)) {
        limits.set(limit, (limits.get(limit) ?? 0) + 1);
      }
      if (reset !== undefined) semantics.observe(reset, arrivalNs);

      const w = windowOf(info, reset, remaining, arrivalNs);
      if (limit !== undefined) {
        if (w.limit === undefined) w.limit = limit;
        else if (w.limit !== limit) countViolation(violations, 'limit-changed-within-window');
      }
      if (remaining !== undefined && startNs > w.lastStartNs) {
        if (w.lastStartRemaining !== undefined && remaining > w.lastStartRemaining) {
          countViolation(violations, 'remaining-increased-within-window');
        }
        w.lastStartNs = startNs;
        w.lastStartRemaining = remaining;
      }

      let verdict: ThrottleClass = 'none';
      if (status === 429) {
        responses429++;
        // `info` exists for a lone Retry-After too, which gateways send with their own 429s.
        if (info === undefined || (info.raw.limit === undefined && info.raw.remaining === undefined && info.raw.reset === undefined)) headerless429++;
        verdict = judged ?? judge429(w, startNs);
        w.rejected++;
        if (verdict === 'expected') expected429++;
        else premature429++;
        if (rejectedWin === undefined) rejectedWin = w;
        if (first429 === undefined) placeFirst429(startNs);
      } else {
        w.accepted++;
        if (remaining !== undefined && (w.minAccRemaining === undefined || remaining < w.minAccRemaining)) {
          w.minAccRemaining = remaining;
        }
        if (lastAccepted === undefined || startNs > lastAccepted.startNs) lastAccepted = { startNs, remaining };
        if (rejectedWin !== undefined && w.seq > rejectedWin.seq && (recoveryObsNs === undefined || arrivalNs < recoveryObsNs)) {
          recoveryObsNs = arrivalNs;
        }
      }
      trackSendOrder(startNs);
      return verdict;
    },

    snapshot() {
      const resetAtNs = rejectedWin?.resetAtNs;
      return {
        advertisedLimit: advertised() ?? null,
        resetSemantics: semantics.result(),
        responses,
        responses429,
        expected429,
        premature429,
        headerless429,
        headerViolations: Object.fromEntries(violations),
        windows: windows.map((w) => ({
          reset: w.resetRaw ?? null,
          accepted: w.accepted,
          rejected: w.rejected,
          limit: w.limit ?? null,
          minRemaining: w.minAccRemaining ?? null,
        })),
        windowsDropped,
        first429: first429 === undefined ? null : { index: first429.index, atMs: (first429.startNs - runStartNs) / 1e6 },
        recoveryMs:
          resetAtNs === undefined || recoveryObsNs === undefined ? null : Math.max(0, recoveryObsNs - resetAtNs) / 1e6,
      };
    },
  };
}
