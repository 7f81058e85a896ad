/**
 * Merging the sections a report keeps as counts and summaries (notifications, asynchronous
 * runs, the audit, journey iterations and checks). Counts add; a field that is a setting of
 * the run (a poll interval, a grace period) must agree; a summary without its histogram (`Pct`)
 * takes each statistic's worst part, its mean weighted by counts; `min`/`max` fields take the
 * lowest/highest; lists are joined and bounded. Merging one report gives it back unchanged.
 */
import { FlowgaugeError } from '../core/errors.js';
import { decodeHistogram, emptyPct, toPct, type Pct } from '../collect/histogram.js';
import { MAX_ITERATION_ERRORS, mergeCheckExamples, type CheckCounts, type CheckExample } from '../collect/iteration-stats.js';
import type { ChecksReport, IterationsReport } from './model.js';

/** Fields that describe how the run was set up: they must be the same in every part. */
const SETTINGS = new Set(['pollIntervalMs', 'meanBiasMs', 'graceMs', 'eventSet', 'scope', 'objective']);
/** Longest list kept when lists are joined. */
const MAX_LIST = 200;

const isPct = (v: unknown): v is Pct =>
  typeof v === 'object' && v !== null && ['p50', 'p90', 'p95', 'p99', 'p999', 'max', 'mean', 'count'].every((k) => typeof (v as Record<string, unknown>)[k] === 'number');

/** Each statistic's worst part, the mean weighted by count (exact only with one part). */
export function worstPct(parts: readonly Pct[]): Pct {
  const withData = parts.filter((p) => p.count > 0);
  if (withData.length === 0) return emptyPct();
  if (withData.length === 1) return withData[0] as Pct;
  const count = withData.reduce((n, p) => n + p.count, 0);
  const worst = (k: 'p50' | 'p90' | 'p95' | 'p99' | 'p999' | 'max'): number => Math.max(...withData.map((p) => p[k]));
  return { p50: worst('p50'), p90: worst('p90'), p95: worst('p95'), p99: worst('p99'), p999: worst('p999'), max: worst('max'), mean: withData.reduce((n, p) => n + p.mean * p.count, 0) / count, count };
}

/**
 * Merges values of the same shape by the rules above. `path` names the field in errors.
 * Parts that lack the field are skipped; undefined when no part has it.
 */
export function mergeStructural(parts: readonly unknown[], path: string): unknown {
  const present = parts.filter((p) => p !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  const first = present[0];
  const key = path.slice(path.lastIndexOf('.') + 1);
  if (SETTINGS.has(key)) {
    const same = present.every((p) => JSON.stringify(p) === JSON.stringify(first));
    if (!same) throw new FlowgaugeError('FG_REPORT_INVALID', `cannot merge: ${path} differs between reports (${present.map((p) => JSON.stringify(p)).join(', ')}); parts of one run share it`);
    return first;
  }
  if (present.every((p) => p === null || typeof p === 'number')) {
    const nums = present.filter((p): p is number => typeof p === 'number');
    if (nums.length === 0) return null;
    if (key === 'min' || key.startsWith('min')) return Math.min(...nums);
    if (key === 'max' || key.startsWith('max')) return Math.max(...nums);
    return nums.reduce((a, b) => a + b, 0);
  }
  if (present.every((p) => typeof p === 'boolean')) return present.every(Boolean);
  if (present.every((p) => typeof p === 'string')) return present.every((p) => p === first) ? first : present.join(', ');
  if (present.every(Array.isArray)) return (present as unknown[][]).flat().slice(0, MAX_LIST);
  if (present.every(isPct)) return worstPct(present);
  if (present.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))) {
    const keys = [...new Set(present.flatMap((p) => Object.keys(p as object)))];
    return Object.fromEntries(keys.map((k) => [k, mergeStructural(present.map((p) => (p as Record<string, unknown>)[k]), `${path}.${k}`)]));
  }
  throw new FlowgaugeError('FG_REPORT_INVALID', `cannot merge: ${path} has values of different kinds`);
}

/** `iterations`: counts add; the duration is re-read from the merged histogram; messages combine. */
export function mergeIterations(parts: readonly (IterationsReport | undefined)[], mergedDuration: string | undefined): IterationsReport | undefined {
  const present = parts.filter((p): p is IterationsReport => p !== undefined);
  if (present.length === 0) return undefined;
  const sum = (k: 'started' | 'completed' | 'failed' | 'interrupted' | 'dropped' | 'otherErrors'): number => present.reduce((n, p) => n + (p[k] ?? 0), 0);
  const byMessage = new Map<string, number>();
  for (const p of present) for (const e of p.errors) byMessage.set(e.message, (byMessage.get(e.message) ?? 0) + e.count);
  const errors = [...byMessage].map(([message, count]) => ({ message, count })).sort((a, b) => b.count - a.count);
  const kept = errors.slice(0, MAX_ITERATION_ERRORS);
  return {
    started: sum('started'),
    completed: sum('completed'),
    failed: sum('failed'),
    interrupted: sum('interrupted'),
    dropped: sum('dropped'),
    durationMs: mergedDuration === undefined ? worstPct(present.map((p) => p.durationMs)) : toPct(decodeHistogram(mergedDuration)),
    errors: kept,
    otherErrors: sum('otherErrors') + errors.slice(MAX_ITERATION_ERRORS).reduce((n, e) => n + e.count, 0),
  };
}

/** `checks`: passes and fails add by name; examples are the union of the parts' distinct ones, at most 3. */
export function mergeChecks(parts: readonly (ChecksReport | undefined)[]): ChecksReport | undefined {
  const present = parts.filter((p): p is ChecksReport => p !== undefined);
  if (present.length === 0) return undefined;
  const out: Record<string, { passes: number; fails: number }> = {};
  const examples = new Map<string, (readonly CheckExample[] | undefined)[]>();
  for (const p of present) {
    for (const [name, c] of Object.entries(p)) {
      const o = (out[name] ??= { passes: 0, fails: 0 });
      o.passes += c.passes;
      o.fails += c.fails;
      if (c.examples !== undefined) examples.set(name, [...(examples.get(name) ?? []), c.examples]);
    }
  }
  return Object.fromEntries(
    Object.entries(out).map(([name, c]): [string, CheckCounts] => {
      const kept = mergeCheckExamples(examples.get(name) ?? []);
      return [name, kept === undefined ? c : { ...c, examples: kept }];
    }),
  );
}

/** `steps`: each step's latency re-read from its merged histogram (`step.<name>`). */
export function stepsFrom(histograms: Readonly<Record<string, string>>): Record<string, Pct> | undefined {
  const entries = Object.entries(histograms).filter(([k]) => k.startsWith('step.'));
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([k, enc]) => [k.slice(5), toPct(decodeHistogram(enc))]));
}
