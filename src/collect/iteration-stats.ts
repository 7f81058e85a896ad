/**
 * Journey accounting: iterations by outcome with their duration (from the intended start, so
 * a stalled service shows), the first distinct failure messages, named checks, and named
 * steps' latency. Pure; histograms are HDR so shards and scenarios merge exactly.
 */
import { createLatencyHistogram, encodeHistogram, recordNs, toPct } from './histogram.js';
import type { LatencyHistogram, Pct } from './histogram.js';

/** Distinct failure messages kept; later new ones are counted in `otherErrors`. */
export const MAX_ITERATION_ERRORS = 10;
/** Distinct check and step names kept (user code may make names from data: bound them). */
export const MAX_NAMES = 200;
/** Longest message or name kept, in characters. */
const MAX_TEXT = 300;

/** report.json `iterations`. */
export interface IterationsSnapshot {
  readonly started: number;
  readonly completed: number;
  readonly failed: number;
  readonly interrupted: number;
  /** Iterations the schedule could not start (`maxInFlight` reached). */
  readonly dropped: number;
  readonly durationMs: Pct;
  /** The first distinct failure messages, most frequent first. */
  readonly errors: readonly { readonly message: string; readonly count: number }[];
  /** Failures whose message was not among the kept ones. */
  readonly otherErrors: number;
}

/** report.json `checks.<name>`. */
export interface CheckCounts {
  readonly passes: number;
  readonly fails: number;
}

/** What journey accounting holds at one instant. */
export interface IterationStatsSnapshot {
  readonly iterations: IterationsSnapshot;
  readonly checks: Readonly<Record<string, CheckCounts>>;
  /** Step latency by name. */
  readonly steps: Readonly<Record<string, Pct>>;
  /** Serialised histograms: `iteration.duration` and `step.<name>`. */
  readonly histograms: Readonly<Record<string, string>>;
}

/** Journey accounting of one scenario (or of a whole run). */
export interface IterationStats {
  started(): void;
  dropped(n: number): void;
  ended(result: 'completed' | 'failed' | 'interrupted', durationNs: number, error: string | undefined): void;
  check(name: string, passed: boolean): void;
  step(name: string, durationNs: number): void;
  /** Checks so far, for live thresholds (no serialisation). */
  checkCounts(): Readonly<Record<string, CheckCounts>>;
  /** Iteration counts and live duration histogram, for live thresholds. */
  live(): { readonly failed: number; readonly ended: number; readonly duration: LatencyHistogram };
  /** True once anything journey-like was seen (mix-only runs leave these sections out). */
  readonly active: boolean;
  snapshot(): IterationStatsSnapshot;
}

const clip = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);

/** Creates journey accounting. */
export function createIterationStats(): IterationStats {
  const counts = { started: 0, completed: 0, failed: 0, interrupted: 0, dropped: 0 };
  const duration = createLatencyHistogram();
  const errors = new Map<string, number>();
  let otherErrors = 0;
  const checks = new Map<string, { passes: number; fails: number }>();
  const steps = new Map<string, LatencyHistogram>();
  let active = false;
  const checkCounts = (): Record<string, CheckCounts> => Object.fromEntries([...checks].map(([k, v]) => [k, { ...v }]));

  return {
    get active() {
      return active;
    },
    started() {
      active = true;
      counts.started++;
    },
    dropped(n) {
      if (n <= 0) return;
      active = true;
      counts.dropped += n;
    },
    ended(result, durationNs, error) {
      counts[result]++;
      recordNs(duration, durationNs);
      if (result !== 'failed') return;
      const message = clip(error ?? 'failed');
      const seen = errors.get(message);
      if (seen !== undefined) errors.set(message, seen + 1);
      else if (errors.size < MAX_ITERATION_ERRORS) errors.set(message, 1);
      else otherErrors++;
    },
    check(name, passed) {
      active = true;
      const key = clip(name);
      let c = checks.get(key);
      if (c === undefined) {
        if (checks.size >= MAX_NAMES) return;
        checks.set(key, (c = { passes: 0, fails: 0 }));
      }
      if (passed) c.passes++;
      else c.fails++;
    },
    step(name, durationNs) {
      const key = clip(name);
      let h = steps.get(key);
      if (h === undefined) {
        if (steps.size >= MAX_NAMES) return;
        steps.set(key, (h = createLatencyHistogram()));
      }
      recordNs(h, durationNs);
    },
    checkCounts,
    live() {
      return { failed: counts.failed, ended: counts.completed + counts.failed + counts.interrupted, duration };
    },
    snapshot() {
      const histograms: Record<string, string> = { 'iteration.duration': encodeHistogram(duration) };
      const stepPct: Record<string, Pct> = {};
      for (const [name, h] of steps) {
        stepPct[name] = toPct(h);
        histograms[`step.${name}`] = encodeHistogram(h);
      }
      return {
        iterations: {
          ...counts,
          durationMs: toPct(duration),
          errors: [...errors].map(([message, count]) => ({ message, count })).sort((a, b) => b.count - a.count),
          otherErrors,
        },
        checks: checkCounts(),
        steps: stepPct,
        histograms,
      };
    },
  };
}
