/**
 * The status timeline people read first on an uptime page (Uptime Kuma, Gatus): the observed
 * part of the window cut into equal buckets, each series' outcome per bucket, incidents marked,
 * and the error budget burned bucket by bucket. Pure; the spans are those of the uptime math
 * (`computeUptime`: each outcome stands for the time to the next probe, at most its interval).
 *
 * The cells are sized to the data: three hours of records in a 30-day window are drawn as
 * cells of those three hours, not as 90 cells of 8 hours of which one holds them all. Series
 * are accumulated in fine buckets (`TIMELINE_RESOLUTION` per cell) over the whole window, as
 * the records stream by, and merged into at most `TIMELINE_BUCKETS` cells from the first fine
 * bucket that holds data.
 */
import type { OutcomePoint } from './series.js';
import type { TimeWindow } from './uptime.js';

/** Most cells of a row. */
export const TIMELINE_BUCKETS = 90;

/** Fine buckets accumulated per cell of a timeline over the whole window. */
export const TIMELINE_RESOLUTION = 32;

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
  /** Start of the first cell: the window's start, or later when the records begin later. */
  readonly startMs: number;
  readonly bucketMs: number;
  /** Start of the window the status covers (before `startMs` nothing was observed). */
  readonly windowStartMs: number;
  /** When the first record of the window starts to count (the window's start for one clipped into it); null without any. */
  readonly firstRecordMs?: number | null;
  readonly rows: readonly TimelineRow[];
  /** Overall downtime so far at the end of each bucket / the window's allowed downtime (1 = all spent). */
  readonly budgetBurned: readonly number[];
}

/** One series' time in equal buckets of the window, before they are merged into cells. */
export interface TimelineTrack {
  readonly name: string;
  /** Where the series' first observed span begins in the window; undefined when none does. */
  readonly firstMs?: number | undefined;
  readonly upMs: readonly number[];
  readonly downMs: readonly number[];
  readonly incident: readonly boolean[];
}

/** One series' track, built point by point in constant memory. */
export interface TimelineAccumulator {
  /** Takes the next point (in time order). */
  add(point: OutcomePoint): void;
  /** Marks the buckets an incident of the series overlaps. */
  markIncident(startMs: number, endMs: number): void;
  /** The track. Call once, after the last point and incident. */
  finish(name: string): TimelineTrack;
}

/**
 * Creates the accumulator of one track: `n` equal buckets of `window` (by default fine enough
 * to be merged into cells of any later part of it). As in the uptime math a point's span ends
 * at the next point, so one point is held until the next arrives.
 */
export function createTimelineAccumulator(window: TimeWindow, n = TIMELINE_BUCKETS * TIMELINE_RESOLUTION): TimelineAccumulator {
  const bucketMs = (window.endMs - window.startMs) / n;
  const upMs = new Array<number>(n).fill(0);
  const downMs = new Array<number>(n).fill(0);
  const incident = new Array<boolean>(n).fill(false);
  let pending: OutcomePoint | undefined;
  let firstMs: number | undefined;
  const bucketOf = (ms: number): number => Math.floor((ms - window.startMs) / bucketMs);

  const settle = (p: OutcomePoint, next: OutcomePoint | undefined): void => {
    let to = Math.min(p.timeMs + p.intervalMs, window.endMs);
    if (next !== undefined) to = Math.min(to, Math.max(next.timeMs, p.timeMs));
    let from = Math.max(p.timeMs, window.startMs);
    if (from < to && firstMs === undefined) firstMs = from;
    const target = p.success ? upMs : downMs;
    while (from < to) {
      const b = Math.min(n - 1, bucketOf(from));
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
      // The buckets it overlaps, found directly: a flapping series has many incidents.
      const first = Math.max(0, bucketOf(startMs));
      const last = Math.min(n - 1, bucketOf(endMs));
      for (let b = first; b <= last; b++) incident[b] = true;
    },
    finish(name) {
      if (pending !== undefined) settle(pending, undefined);
      pending = undefined;
      return { name, firstMs, upMs, downMs, incident };
    },
  };
}

function outcomeOf(up: number, down: number): CellOutcome {
  if (up <= 0 && down <= 0) return 'none';
  if (down <= 0) return 'up';
  return up <= 0 ? 'down' : 'partial';
}

/**
 * The timeline of tracks already built (the first is overall): from the first bucket any of
 * them observed to the window's end, in at most `n` equal cells of whole buckets.
 * `allowedDowntimeMs` scales the budget line.
 */
export function timelineOf(tracks: readonly TimelineTrack[], window: TimeWindow, allowedDowntimeMs: number, n = TIMELINE_BUCKETS): Timeline {
  const fine = tracks[0]?.upMs.length ?? n;
  const fineMs = (window.endMs - window.startMs) / fine;
  let first = fine;
  for (const t of tracks) {
    const i = t.upMs.findIndex((up, b) => up > 0 || (t.downMs[b] as number) > 0);
    if (i !== -1) first = Math.min(first, i);
  }
  // Nothing observed: the whole window, in `n` empty cells.
  if (first === fine) first = 0;
  const per = Math.max(1, Math.ceil((fine - first) / n));
  const cells = Math.ceil((fine - first) / per);
  // Cells end at the window's end; the first may start a little before the data.
  const start = fine - cells * per;
  const rows = tracks.map((t) => ({
    name: t.name,
    cells: Array.from({ length: cells }, (_, k): TimelineCell => {
      let up = 0;
      let down = 0;
      let incident = false;
      for (let b = Math.max(0, start + k * per); b < start + (k + 1) * per; b++) {
        up += t.upMs[b] as number;
        down += t.downMs[b] as number;
        incident ||= t.incident[b] === true;
      }
      return { outcome: outcomeOf(up, down), upMs: up, downMs: down, incident };
    }),
  }));
  let burned = 0;
  const budgetBurned = (rows[0]?.cells ?? []).map((c) => {
    burned += c.downMs;
    return allowedDowntimeMs > 0 ? burned / allowedDowntimeMs : 0;
  });
  const firsts = tracks.flatMap((t) => (t.firstMs === undefined ? [] : [t.firstMs]));
  const firstRecordMs = firsts.length === 0 ? null : Math.min(...firsts);
  return { startMs: window.startMs + start * fineMs, bucketMs: per * fineMs, windowStartMs: window.startMs, firstRecordMs, rows, budgetBurned };
}
