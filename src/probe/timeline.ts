/**
 * The status timeline people read first on an uptime page (Uptime Kuma, Gatus): the window cut
 * into equal buckets, each series' outcome per bucket, incidents marked, and the error budget
 * burned bucket by bucket. Pure; the spans are those of the uptime math (`computeUptime`: each
 * outcome stands for the time to the next probe, at most its interval).
 */
import type { OutcomePoint } from './series.js';
import type { TimeWindow } from './uptime.js';

/** Buckets of the timeline (one cell each). */
export const TIMELINE_BUCKETS = 90;

/** What a bucket of a series saw: all up, some down, all down, or nothing observed. */
export type CellOutcome = 'up' | 'partial' | 'down' | 'none';

/** One cell. */
export interface TimelineCell {
  readonly outcome: CellOutcome;
  readonly upMs: number;
  readonly downMs: number;
  /** The bucket overlaps an incident of the series. */
  readonly incident: boolean;
}

/** One series' row. */
export interface TimelineRow {
  readonly name: string;
  readonly cells: readonly TimelineCell[];
}

/** The whole timeline. */
export interface Timeline {
  readonly startMs: number;
  readonly bucketMs: number;
  readonly rows: readonly TimelineRow[];
  /** Overall downtime so far at the end of each bucket / the window's allowed downtime (1 = all spent). */
  readonly budgetBurned: readonly number[];
}

/** One series' row of the timeline, built point by point in constant memory. */
export interface TimelineAccumulator {
  /** Takes the next point (in time order). */
  add(point: OutcomePoint): void;
  /** Marks the buckets an incident of the series overlaps. */
  markIncident(startMs: number, endMs: number): void;
  /** The row. Call once, after the last point and incident. */
  finish(name: string): TimelineRow;
}

/**
 * Creates the accumulator of one row: `n` equal buckets of `window`. As in the uptime math a
 * point's span ends at the next point, so one point is held until the next arrives.
 */
export function createTimelineAccumulator(window: TimeWindow, n = TIMELINE_BUCKETS): TimelineAccumulator {
  const bucketMs = (window.endMs - window.startMs) / n;
  const upMs = new Array<number>(n).fill(0);
  const downMs = new Array<number>(n).fill(0);
  const incident = new Array<boolean>(n).fill(false);
  let pending: OutcomePoint | undefined;

  const settle = (p: OutcomePoint, next: OutcomePoint | undefined): void => {
    let to = Math.min(p.timeMs + p.intervalMs, window.endMs);
    if (next !== undefined) to = Math.min(to, Math.max(next.timeMs, p.timeMs));
    let from = Math.max(p.timeMs, window.startMs);
    const target = p.success ? upMs : downMs;
    while (from < to) {
      const b = Math.min(n - 1, Math.floor((from - window.startMs) / bucketMs));
      const end = Math.min(to, window.startMs + (b + 1) * bucketMs);
      target[b] = (target[b] as number) + (end - from);
      // A bucket edge that rounds onto `from` would not advance: step to the span's end.
      from = end > from ? end : to;
    }
  };

  return {
    add(point) {
      if (pending !== undefined) settle(pending, point);
      pending = point;
    },
    markIncident(startMs, endMs) {
      for (let b = 0; b < n; b++) {
        const from = window.startMs + b * bucketMs;
        if (startMs < from + bucketMs && endMs >= from) incident[b] = true;
      }
    },
    finish(name) {
      if (pending !== undefined) settle(pending, undefined);
      pending = undefined;
      const cells = upMs.map((up, b) => ({ outcome: outcomeOf(up, downMs[b] as number), upMs: up, downMs: downMs[b] as number, incident: incident[b] === true }));
      return { name, cells };
    },
  };
}

/** Up and down time of `points` in each of `n` equal buckets of `window`. */
export function bucketOutcomes(points: readonly OutcomePoint[], window: TimeWindow, n: number): { upMs: number[]; downMs: number[] } {
  const acc = createTimelineAccumulator(window, n);
  for (const p of points) acc.add(p);
  const row = acc.finish('');
  return { upMs: row.cells.map((c) => c.upMs), downMs: row.cells.map((c) => c.downMs) };
}

function outcomeOf(up: number, down: number): CellOutcome {
  if (up <= 0 && down <= 0) return 'none';
  if (down <= 0) return 'up';
  return up <= 0 ? 'down' : 'partial';
}

/** The timeline of rows already built (the first is overall); `allowedDowntimeMs` scales the budget line. */
export function timelineOf(rows: readonly TimelineRow[], window: TimeWindow, allowedDowntimeMs: number, n = TIMELINE_BUCKETS): Timeline {
  let burned = 0;
  const budgetBurned = (rows[0]?.cells ?? []).map((c) => {
    burned += c.downMs;
    return allowedDowntimeMs > 0 ? burned / allowedDowntimeMs : 0;
  });
  return { startMs: window.startMs, bucketMs: (window.endMs - window.startMs) / n, rows, budgetBurned };
}

/** Builds the timeline of several series over `window`; `allowedDowntimeMs` scales the budget line. */
export function buildTimeline(
  series: readonly { readonly name: string; readonly points: readonly OutcomePoint[]; readonly incidents: readonly { readonly startMs: number; readonly endMs: number }[] }[],
  window: TimeWindow,
  allowedDowntimeMs: number,
  n = TIMELINE_BUCKETS,
): Timeline {
  const rows = series.map((s) => {
    const acc = createTimelineAccumulator(window, n);
    for (const p of s.points) acc.add(p);
    for (const i of s.incidents) acc.markIncident(i.startMs, i.endMs);
    return acc.finish(s.name);
  });
  return timelineOf(rows, window, allowedDowntimeMs, n);
}
