/** Number formatting shared by the Markdown and terminal writers. */
import type { StreamTiming } from '../core/stream-timings.js';
import { formatMs } from '../core/units.js';
import { parseThresholdKey, unitOf } from '../slo/threshold-grammar.js';
import type { ThresholdUnit } from '../slo/threshold-grammar.js';

/** A ratio as a percentage; more decimals near 100 %, where the objective lives. */
export function fmtRatio(r: number | null | undefined): string {
  if (r === null || r === undefined || !Number.isFinite(r)) return '—';
  const p = r * 100;
  const fixed = (p >= 99 && p < 100 ? p.toFixed(3) : p.toFixed(2)).replace(/\.?0+$/, '');
  return `${fixed}%`;
}

/** What the availability figures read of `slo`. */
export interface AvailabilityView {
  readonly availability: number | null;
  readonly objective: number;
  readonly cut?: number | undefined;
  readonly availabilityRange?: { readonly low: number; readonly high: number } | undefined;
}

/**
 * Availability as every rendering says it: `99.95%`, or with requests the grace period cut
 * unjudged, the range they leave: `50%–100% (12 cut, unjudged)`. `met` is judged at its worst end.
 */
export function fmtAvailability(s: AvailabilityView): { readonly text: string; readonly met: boolean } {
  const r = s.availabilityRange;
  if (s.availability === null) return { text: fmtRatio(null), met: false };
  if (r === undefined) return { text: fmtRatio(s.availability), met: s.availability >= s.objective };
  return { text: `${fmtRatio(r.low)}–${fmtRatio(r.high)} (${s.cut ?? 0} cut, unjudged)`, met: r.low >= s.objective };
}

/** A share that may exceed 100 % (error budget consumed), one decimal. */
export function fmtShare(r: number): string {
  return Number.isFinite(r) ? `${(r * 100).toFixed(1)}%` : '—';
}

/** A duration in ms, or a dash for nothing. */
export function fmtDuration(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : formatMs(ms);
}

/** A plain number: integers as they are, others with up to 3 decimals. */
export function fmtNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}

/** How a stream timing's values read: a duration, or a plain rate (tokens per second). */
export function streamTimingFormat(t: StreamTiming): (n: number) => string {
  return t.unit === 'perS' ? fmtNumber : fmtDuration;
}

/** The unit of a threshold key, scoped or not (`pro:availability` is a ratio); count for unknown keys. */
export function thresholdUnit(metric: string): ThresholdUnit {
  const key = parseThresholdKey(metric);
  return key === undefined ? 'count' : unitOf(key.metric);
}

/** A threshold value or observation in its metric's unit. */
export function fmtThresholdValue(metric: string, v: number | null): string {
  if (v === null) return 'not observed';
  switch (thresholdUnit(metric)) {
    case 'ms':
      return formatMs(v);
    case 'ratio':
      return fmtRatio(v);
    case 'perS':
      return `${fmtNumber(v)}/s`;
    case 'count':
      return fmtNumber(v);
  }
}

/** good / (good + bad) as a percentage, or a dash when there were neither. */
export function fmtOk(good: number, bad: number): string {
  return good + bad === 0 ? '—' : fmtRatio(good / (good + bad));
}

/**
 * The requests the end of the grace period cut (`load.cut`), said with the grace period named:
 * `3 requests still open when the 5 s grace period ended (unjudged: availability is the range they leave)`.
 */
export function fmtCut(load: { readonly cut?: number; readonly gracefulStopS?: number }): string | undefined {
  const n = load.cut ?? 0;
  if (n <= 0) return undefined;
  const grace = load.gracefulStopS === undefined ? 'the grace period' : `the ${fmtNumber(load.gracefulStopS)} s grace period`;
  return `${n} request${n === 1 ? '' : 's'} still open when ${grace} ended (unjudged: availability is the range they leave)`;
}

/**
 * A run that joined its schedule late (`load.missed`, `load.joinedAtS`): `12 missed (joined 1.2 s
 * into the schedule)`, or of a merge of shards `(the latest shard joined …)`; undefined when it
 * started on time.
 */
export function fmtJoinedLate(load: { readonly missed?: number; readonly joinedAtS?: number }, merged = false): string | undefined {
  const at = load.joinedAtS ?? 0;
  const missed = load.missed ?? 0;
  if (at <= 0 && missed <= 0) return undefined;
  return `${missed} missed${at > 0 ? ` (${merged ? 'the latest shard joined' : 'joined'} ${fmtNumber(at)} s into the schedule)` : ''}`;
}

/**
 * Which shards a report is of: `shard 2/4 of run "r-1"`, or for a merge `shards 1, 3 of 4
 * (missing 2, 4) of run "r-1"`; undefined for a report of no shard.
 */
export function fmtShards(r: {
  readonly shard?: { readonly index: number; readonly count: number; readonly runId?: string };
  readonly shards?: { readonly count: number; readonly present: readonly number[]; readonly missing: readonly number[]; readonly runId?: string };
}): string | undefined {
  const run = (id: string | undefined): string => (id === undefined ? '' : ` of run "${id}"`);
  if (r.shard !== undefined) return `shard ${r.shard.index}/${r.shard.count}${run(r.shard.runId)}`;
  if (r.shards === undefined) return undefined;
  const { count, present, missing, runId } = r.shards;
  return `shard${present.length === 1 ? '' : 's'} ${present.join(', ')} of ${count}${missing.length > 0 ? ` (missing ${missing.join(', ')})` : ''}${run(runId)}`;
}
