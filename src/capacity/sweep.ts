/**
 * The capacity sweep: the highest throughput a target sustains while meeting a latency
 * objective (p99) and an error objective. Closed-model steps at doubling concurrency (1, 2,
 * 4, …) until one breaks an objective, then bisection between the last good and the first
 * bad concurrency. It says why it stopped: rate limiting (429s make up most of the failures,
 * the service pushing back by policy) or service capacity (latency or other errors).
 *
 * Pure: the measurement of one step is injected (`MeasureStep`), so the search is tested with
 * a fake and driven for real by flowgauge's own client (`measure.ts`).
 */
import { InvalidArgumentError } from '../core/errors.js';

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
}

/** Measures one step; never rejects for target failures (they are in the measurement). */
export type MeasureStep = (concurrency: number) => Promise<StepMeasurement>;

/** Why a step failed its objectives, or why the sweep stopped. */
export type CapacityLimit = 'rate-limit' | 'latency' | 'errors';

/** A measured step with its verdict. */
export interface CapacityStep extends StepMeasurement {
  readonly phase: 'double' | 'bisect';
  readonly meets: boolean;
  /** Why it failed (undefined when it met the objectives). */
  readonly limit: CapacityLimit | undefined;
}

/** Options of `sweepCapacity`. */
export interface CapacitySweepOptions {
  /** Latency objective: p99 at most this many ms. */
  readonly p99Ms: number;
  /** Error objective: at most this ratio (0–1) of failed requests, 429s included. */
  readonly maxErrorRatio: number;
  /** First concurrency (default 1). */
  readonly startConcurrency?: number;
  /** Highest concurrency tried (default 1024). */
  readonly maxConcurrency?: number;
  /** Bisection stops when the good–bad gap is at most this fraction of the good concurrency (default 0.1). */
  readonly resolution?: number;
  readonly measure: MeasureStep;
  /** Called after each step (progress output). */
  readonly onStep?: (step: CapacityStep) => void;
}

/** How the sweep ended. */
export interface CapacityResult {
  readonly steps: readonly CapacityStep[];
  /** The step with the highest good throughput among those that met both objectives. */
  readonly best: CapacityStep | undefined;
  /** The lowest concurrency that broke an objective (undefined when none did). */
  readonly firstBad: CapacityStep | undefined;
  /**
   * What stopped the sweep: the failing limit at `firstBad`, or `max-concurrency` when every
   * step up to the maximum met the objectives.
   */
  readonly stoppedBy: CapacityLimit | 'max-concurrency';
}

/**
 * Judges a measurement: errors first (with 429s making up most of them meaning rate
 * limiting), then latency. A step throttled by 429s is `rate-limit` even when its p99 also
 * broke, because the throttling is what the client hit first.
 */
export function judgeStep(m: StepMeasurement, p99Ms: number, maxErrorRatio: number): CapacityLimit | undefined {
  if (m.errorRatio > maxErrorRatio) return m.ratio429 * 2 > m.errorRatio ? 'rate-limit' : 'errors';
  if (m.p99Ms > p99Ms) return 'latency';
  return undefined;
}

function resolve(options: CapacitySweepOptions): Required<Omit<CapacitySweepOptions, 'onStep'>> {
  const start = options.startConcurrency ?? 1;
  const max = options.maxConcurrency ?? 1024;
  const resolution = options.resolution ?? 0.1;
  if (!(options.p99Ms > 0)) throw new InvalidArgumentError(`p99 objective must be > 0 ms, got ${options.p99Ms}`);
  if (!(options.maxErrorRatio >= 0 && options.maxErrorRatio < 1)) {
    throw new InvalidArgumentError(`error objective must be a ratio in [0, 1), got ${options.maxErrorRatio}`);
  }
  if (!Number.isInteger(start) || start < 1) throw new InvalidArgumentError(`start concurrency must be an integer >= 1, got ${start}`);
  if (!Number.isInteger(max) || max < start) throw new InvalidArgumentError(`max concurrency must be an integer >= ${start}, got ${max}`);
  if (!(resolution > 0 && resolution < 1)) throw new InvalidArgumentError(`resolution must be in (0, 1), got ${resolution}`);
  return { p99Ms: options.p99Ms, maxErrorRatio: options.maxErrorRatio, startConcurrency: start, maxConcurrency: max, resolution, measure: options.measure };
}

/** Runs the sweep. Throws `InvalidArgumentError` for bad options, before measuring anything. */
export async function sweepCapacity(options: CapacitySweepOptions): Promise<CapacityResult> {
  const o = resolve(options);
  const steps: CapacityStep[] = [];
  const step = async (concurrency: number, phase: CapacityStep['phase']): Promise<CapacityStep> => {
    const m = await o.measure(concurrency);
    const limit = judgeStep(m, o.p99Ms, o.maxErrorRatio);
    const s: CapacityStep = { ...m, concurrency, phase, meets: limit === undefined, limit };
    steps.push(s);
    options.onStep?.(s);
    return s;
  };

  let good: CapacityStep | undefined;
  let bad: CapacityStep | undefined;
  for (let c = o.startConcurrency; ; c = Math.min(c * 2, o.maxConcurrency)) {
    const s = await step(c, 'double');
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
  if (good !== undefined && bad !== undefined && bad.limit !== 'rate-limit') {
    let lo = good.concurrency;
    let hi = bad.concurrency;
    while (hi - lo > Math.max(1, Math.floor(lo * o.resolution))) {
      const mid = Math.floor((lo + hi) / 2);
      const s = await step(mid, 'bisect');
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
  return { steps, best, firstBad: bad, stoppedBy: bad === undefined ? 'max-concurrency' : (bad.limit as CapacityLimit) };
}
