/**
 * The capacity sweep: the highest throughput a target sustains while meeting its latency
 * objectives (request p99, and for streams the LLM ones: TTFT p95, TPOT p95) and an error
 * objective. Closed-model steps at doubling concurrency (1, 2, 4, …) until one breaks an
 * objective, then bisection between the last good and the first bad concurrency. It says why it
 * stopped: rate limiting (429s make up most of the failures, the service pushing back by policy)
 * or service capacity (latency, TTFT, TPOT or other errors).
 *
 * Pure: the measurement of one step is injected (`MeasureStep`), so the search is tested with
 * a fake and driven for real by flowgauge's own client (`measure.ts`).
 */
import type { Pct } from '../collect/histogram.js';
import { InvalidArgumentError } from '../core/errors.js';

/**
 * What the streams of one step measured, as a GuideLLM or vLLM benchmark reports it, by the
 * run's definitions (`stream` in report.json): streams delivered in one read are counted and left
 * out of ITL, TPOT and tokens per second.
 */
export interface StepStreamFigures {
  /** Streams opened (answered 2xx). */
  readonly count: number;
  /** Streams whose tokens all arrived in one read. */
  readonly deliveredAtOnce: number;
  readonly ttftMs: Pct;
  readonly itlMs: Pct;
  readonly tpotMs: Pct;
  /** Per stream, in tokens per second. */
  readonly tokensPerS: Pct;
  /** Token events of the good streams per second of the step: the output throughput that counts. */
  readonly outputTokensPerS: number;
}

/** What one step at a fixed concurrency measured. */
export interface StepMeasurement {
  readonly concurrency: number;
  /** Responses and failures together. */
  readonly requests: number;
  /** Completed requests per second (any status). */
  readonly requestsPerS: number;
  /**
   * Answers per second that the run would count good (a 2xx whose body keeps the contract, a
   * stream that reached `end`): the throughput that counts.
   */
  readonly goodPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Bad answers (as the run judges them: error statuses, wrong shapes, broken streams), transport errors and timeouts, over `requests`. */
  readonly errorRatio: number;
  /** 429 responses over `requests`. */
  readonly ratio429: number;
  /** Bad requests by what was wrong (`MALFORMED_BODY`, `CONTRACT_VIOLATION`, `TIMEOUT`, …), when measured. */
  readonly bad?: Readonly<Record<string, number>>;
  /** For a stream operation: TTFT, ITL, TPOT and output tokens per second of the step. */
  readonly stream?: StepStreamFigures;
}

/** Measures one step; never rejects for target failures (they are in the measurement). */
export type MeasureStep = (concurrency: number) => Promise<StepMeasurement>;

/** Why a step failed its objectives, or why the sweep stopped (`latency` is the request p99). */
export type CapacityLimit = 'rate-limit' | 'latency' | 'ttft' | 'tpot' | 'errors';

/** The objectives a step is judged against: at least one latency objective, and the error one. */
export interface CapacityTargets {
  /** Request latency: p99 at most this many ms. */
  readonly p99Ms?: number | undefined;
  /** Streams: time to first token p95 at most this many ms. */
  readonly ttftP95Ms?: number | undefined;
  /** Streams: time per output token p95 at most this many ms. */
  readonly tpotP95Ms?: number | undefined;
  /** At most this ratio (0–1) of failed requests, 429s included. */
  readonly maxErrorRatio: number;
}

/** A measured step with its verdict. */
export interface CapacityStep extends StepMeasurement {
  readonly phase: 'double' | 'bisect';
  readonly meets: boolean;
  /** Why it failed (undefined when it met the objectives). */
  readonly limit: CapacityLimit | undefined;
}

/** Options of `sweepCapacity`. */
export interface CapacitySweepOptions extends CapacityTargets {
  /** First concurrency (default 1). */
  readonly startConcurrency?: number;
  /** Highest concurrency tried (default 1024). */
  readonly maxConcurrency?: number;
  /** Bisection stops when the good–bad gap is at most this fraction of the good concurrency (default 0.1). */
  readonly resolution?: number;
  readonly measure: MeasureStep;
  /** Called after each step (progress output). */
  readonly onStep?: (step: CapacityStep) => void;
  /**
   * Stops the sweep (Ctrl-C): no step starts after it, and the step it cut (measured for less
   * than its length, its requests in flight cancelled) is left out. The result says so.
   */
  readonly signal?: AbortSignal;
}

/** How the sweep ended. */
export interface CapacityResult {
  readonly steps: readonly CapacityStep[];
  /** The step with the highest good throughput among those that met both objectives. */
  readonly best: CapacityStep | undefined;
  /** The lowest concurrency that broke an objective (undefined when none did). */
  readonly firstBad: CapacityStep | undefined;
  /**
   * What stopped the sweep: the failing limit at `firstBad`, `max-concurrency` when every step up
   * to the maximum met the objectives, or `interrupted` when it was stopped first.
   */
  readonly stoppedBy: CapacityLimit | 'max-concurrency' | 'interrupted';
  /** True when the sweep was stopped before it finished: `steps` are those it measured whole. */
  readonly interrupted?: true;
}

/**
 * Judges a measurement: errors first (with 429s making up most of them meaning rate
 * limiting), then request latency, TTFT and TPOT. A step throttled by 429s is `rate-limit` even
 * when its latency also broke, because the throttling is what the client hit first. A stream
 * objective with nothing measured (no stream reached a first token, or a second one) is not met.
 */
export function judgeStep(m: StepMeasurement, o: CapacityTargets): CapacityLimit | undefined {
  if (m.errorRatio > o.maxErrorRatio) return m.ratio429 * 2 > m.errorRatio ? 'rate-limit' : 'errors';
  if (o.p99Ms !== undefined && m.p99Ms > o.p99Ms) return 'latency';
  const over = (x: Pct | undefined, limit: number): boolean => x === undefined || x.count === 0 || x.p95 > limit;
  if (o.ttftP95Ms !== undefined && over(m.stream?.ttftMs, o.ttftP95Ms)) return 'ttft';
  if (o.tpotP95Ms !== undefined && over(m.stream?.tpotMs, o.tpotP95Ms)) return 'tpot';
  return undefined;
}

type ResolvedSweep = Required<Omit<CapacitySweepOptions, 'onStep' | 'signal' | keyof CapacityTargets>> & CapacityTargets;

function resolve(options: CapacitySweepOptions): ResolvedSweep {
  const start = options.startConcurrency ?? 1;
  const max = options.maxConcurrency ?? 1024;
  const resolution = options.resolution ?? 0.1;
  const latency = { p99: options.p99Ms, 'TTFT p95': options.ttftP95Ms, 'TPOT p95': options.tpotP95Ms };
  if (Object.values(latency).every((v) => v === undefined)) throw new InvalidArgumentError('a latency objective is needed: p99, TTFT p95 or TPOT p95');
  for (const [name, v] of Object.entries(latency)) {
    if (v !== undefined && !(v > 0)) throw new InvalidArgumentError(`${name} objective must be > 0 ms, got ${v}`);
  }
  if (!(options.maxErrorRatio >= 0 && options.maxErrorRatio < 1)) {
    throw new InvalidArgumentError(`error objective must be a ratio in [0, 1), got ${options.maxErrorRatio}`);
  }
  if (!Number.isInteger(start) || start < 1) throw new InvalidArgumentError(`start concurrency must be an integer >= 1, got ${start}`);
  if (!Number.isInteger(max) || max < start) throw new InvalidArgumentError(`max concurrency must be an integer >= ${start}, got ${max}`);
  if (!(resolution > 0 && resolution < 1)) throw new InvalidArgumentError(`resolution must be in (0, 1), got ${resolution}`);
  return {
    p99Ms: options.p99Ms,
    ttftP95Ms: options.ttftP95Ms,
    tpotP95Ms: options.tpotP95Ms,
    maxErrorRatio: options.maxErrorRatio,
    startConcurrency: start,
    maxConcurrency: max,
    resolution,
    measure: options.measure,
  };
}

/** Runs the sweep. Throws `InvalidArgumentError` for bad options, before measuring anything. */
export async function sweepCapacity(options: CapacitySweepOptions): Promise<CapacityResult> {
  const o = resolve(options);
  const steps: CapacityStep[] = [];
  const halted = (): boolean => options.signal?.aborted === true;
  /** Measures and judges a step; undefined when the sweep was stopped before or during it. */
  const step = async (concurrency: number, phase: CapacityStep['phase']): Promise<CapacityStep | undefined> => {
    if (halted()) return undefined;
    const m = await o.measure(concurrency);
    if (halted()) return undefined;
    const limit = judgeStep(m, o);
    const s: CapacityStep = { ...m, concurrency, phase, meets: limit === undefined, limit };
    steps.push(s);
    options.onStep?.(s);
    return s;
  };

  let good: CapacityStep | undefined;
  let bad: CapacityStep | undefined;
  for (let c = o.startConcurrency; ; c = Math.min(c * 2, o.maxConcurrency)) {
    const s = await step(c, 'double');
    if (s === undefined) break;
    if (!s.meets) {
      bad = s;
      break;
    }
    good = s;
    if (c >= o.maxConcurrency) break;
  }

  // Bisect between the last good and the first bad concurrency. Not past rate limiting: the
  // quota is spent for the rest of its window, so lower concurrency would be throttled too and
  // say nothing about the service.
  if (good !== undefined && bad !== undefined && bad.limit !== 'rate-limit' && !halted()) {
    let lo = good.concurrency;
    let hi = bad.concurrency;
    while (hi - lo > Math.max(1, Math.floor(lo * o.resolution))) {
      const mid = Math.floor((lo + hi) / 2);
      const s = await step(mid, 'bisect');
      if (s === undefined) break;
      if (s.meets) lo = mid;
      else {
        hi = mid;
        bad = s;
        if (s.limit === 'rate-limit') break;
      }
    }
  }

  let best: CapacityStep | undefined;
  for (const s of steps) if (s.meets && (best === undefined || s.goodPerS > best.goodPerS)) best = s;
  if (halted()) return { steps, best, firstBad: bad, stoppedBy: 'interrupted', interrupted: true };
  return { steps, best, firstBad: bad, stoppedBy: bad === undefined ? 'max-concurrency' : (bad.limit as CapacityLimit) };
}
