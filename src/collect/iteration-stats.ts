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

/** Failed checks kept as examples per check name. */
export const MAX_CHECK_EXAMPLES = 3;
/** Longest `expected` or `actual` of an example kept, in characters. */
export const MAX_EXAMPLE_TEXT = 200;

/** One failed check: what was expected and what was seen, as bounded text. */
export interface CheckExample {
  readonly expected: string;
  readonly actual: string;
}

/** report.json `checks.<name>`. */
export interface CheckCounts {
  readonly passes: number;
  readonly fails: number;
  /** The first distinct failures that said what they expected and saw (at most `MAX_CHECK_EXAMPLES`). */
  readonly examples?: readonly CheckExample[];
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
  /** Counts a check; a failed one's `example` is kept while fewer than `MAX_CHECK_EXAMPLES` distinct ones are. */
  check(name: string, passed: boolean, example?: CheckExample): void;
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

/**
 * A value as example text: a string as it is, anything else as JSON; scrubbed by `redact` before
 * it is cut to `MAX_EXAMPLE_TEXT` characters (so no part of a secret survives the cut).
 */
export function exampleText(v: unknown, redact: (s: string) => string = (x) => x): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (v === undefined) s = 'undefined';
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  s = redact(s);
  return s.length > MAX_EXAMPLE_TEXT ? `${s.slice(0, MAX_EXAMPLE_TEXT)}…` : s;
}

/**
 * A failed check's example from its detail (`vu.check`'s `{ expected, actual }`), each side bounded and passed through `redact` (the
 * client's token scrubber: a value may have come from the server). Undefined without a detail.
 */
export function checkExample(detail: { readonly expected?: unknown; readonly actual?: unknown } | undefined, redact: (s: string) => string = (s) => s): CheckExample | undefined {
  if (detail === undefined || detail === null || typeof detail !== 'object') return undefined;
  const has = (k: 'expected' | 'actual'): boolean => Object.hasOwn(detail, k);
  if (!has('expected') && !has('actual')) return undefined;
  return {
    expected: has('expected') ? exampleText(detail.expected, redact) : '–',
    actual: has('actual') ? exampleText(detail.actual, redact) : '–',
  };
}

/** Examples of several parts of one check: the distinct ones, in order, at most `MAX_CHECK_EXAMPLES`. */
export function mergeCheckExamples(parts: readonly (readonly CheckExample[] | undefined)[]): CheckExample[] | undefined {
  const out: CheckExample[] = [];
  for (const list of parts) {
    for (const e of list ?? []) {
      if (out.length >= MAX_CHECK_EXAMPLES) return out;
      if (!out.some((o) => o.expected === e.expected && o.actual === e.actual)) out.push({ expected: e.expected, actual: e.actual });
    }
  }
  return out.length === 0 ? undefined : out;
}

/** Creates journey accounting. */
export function createIterationStats(): IterationStats {
  const counts = { started: 0, completed: 0, failed: 0, interrupted: 0, dropped: 0 };
  const duration = createLatencyHistogram();
  const errors = new Map<string, number>();
  let otherErrors = 0;
  const checks = new Map<string, { passes: number; fails: number; examples?: CheckExample[] }>();
  const steps = new Map<string, LatencyHistogram>();
  let active = false;
  const checkCounts = (): Record<string, CheckCounts> =>
    Object.fromEntries([...checks].map(([k, v]) => [k, v.examples === undefined ? { passes: v.passes, fails: v.fails } : { passes: v.passes, fails: v.fails, examples: [...v.examples] }]));

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
    check(name, passed, example) {
      active = true;
      const key = clip(name);
      let c = checks.get(key);
      if (c === undefined) {
        if (checks.size >= MAX_NAMES) return;
        checks.set(key, (c = { passes: 0, fails: 0 }));
      }
      if (passed) c.passes++;
      else {
        c.fails++;
        if (example !== undefined && (c.examples?.length ?? 0) < MAX_CHECK_EXAMPLES) {
          const list = (c.examples ??= []);
          if (!list.some((e) => e.expected === example.expected && e.actual === example.actual)) list.push({ expected: example.expected, actual: example.actual });
        }
      }
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
