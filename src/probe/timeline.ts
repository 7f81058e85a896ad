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

/** Up and down time of `points` in each of `n` equal buckets of `window`. */
export function bucketOutcomes(points: readonly OutcomePoint[], window: TimeWindow, n: number): { upMs: number[]; downMs: number[] } {
  const bucketMs = (window.endMs - window.startMs) / n;
  const upMs = new Array<number>(n).fill(0);
  const downMs = new Array<number>(n).fill(0);
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as OutcomePoint;
    const next = points[i + 1];
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
  }
  return { upMs, downMs };
}

function outcomeOf(up: number, down: number): CellOutcome {
  if (up <= 0 && down <= 0) return 'none';
  if (down <= 0) return 'up';
  return up <= 0 ? 'down' : 'partial';
}

/** Builds the timeline of several series over `window`; `allowedDowntimeMs` scales the budget line. */
export function buildTimeline(
  series: readonly { readonly name: string; readonly points: readonly OutcomePoint[]; readonly incidents: readonly { readonly startMs: number; readonly endMs: number }[] }[],
  window: TimeWindow,
  allowedDowntimeMs: number,
  n = TIMELINE_BUCKETS,
): Timeline {
  const bucketMs = (window.endMs - window.startMs) / n;
  const rows = series.map((s) => {
    const { upMs, downMs } = bucketOutcomes(s.points, window, n);
    const cells = upMs.map((up, b) => {
      const from = window.startMs + b * bucketMs;
      const to = from + bucketMs;
      const incident = s.incidents.some((i) => i.startMs < to && i.endMs >= from);
      return { outcome: outcomeOf(up, downMs[b] as number), upMs: up, downMs: downMs[b] as number, incident };
    });
    return { name: s.name, cells };
  });
  let burned = 0;
  const budgetBurned = (rows[0]?.cells ?? []).map((c) => {
    burned += c.downMs;
    return allowedDowntimeMs > 0 ? burned / allowedDowntimeMs : 0;
  });
  return { startMs: window.startMs, bucketMs, rows, budgetBurned };
}
