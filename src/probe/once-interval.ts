/**
 * The span a `probe --once` record stands for when no `--interval` was given. A CronJob or a
 * systemd timer runs one round per schedule tick, so each record must stand for the time to the
 * next tick; a fixed default shorter than the schedule leaves part of every outage uncounted.
 * Without the schedule, the gap since the previous record of the same check is the best guess,
 * bounded so a prober that was stopped for hours does not make one outcome stand for all of it.
 */
import { recordTimeMs, type CheckName, type ProbeRecord } from './record.js';

/** Shortest span derived (the probe's own lower bound on `--interval`). */
export const MIN_DERIVED_INTERVAL_MS = 1000;
/** Longest span derived: beyond it the previous record is too old to say what the schedule is. */
export const MAX_DERIVED_INTERVAL_MS = 3_600_000;

/** What `deriveOnceInterval` found. */
export type DerivedInterval =
  | { readonly ok: true; readonly intervalMs: number; readonly previousAt: string }
  | { readonly ok: false; readonly reason: 'no-previous' | 'too-old' | 'too-recent'; readonly gapMs?: number };

/**
 * The gap from the latest earlier record of each check in `checks` to `nowMs`, the longest of
 * them (the checks of a round share a schedule; the longest gap leaves nothing uncounted), when
 * it lies within [`MIN_DERIVED_INTERVAL_MS`, `MAX_DERIVED_INTERVAL_MS`].
 */
export function deriveOnceInterval(previous: readonly ProbeRecord[], checks: readonly CheckName[], nowMs: number): DerivedInterval {
  const last = new Map<string, ProbeRecord>();
  for (const r of previous) {
    if (!checks.includes(r.check) || recordTimeMs(r) > nowMs) continue;
    const seen = last.get(r.check);
    if (seen === undefined || recordTimeMs(seen) < recordTimeMs(r)) last.set(r.check, r);
  }
  if (last.size === 0) return { ok: false, reason: 'no-previous' };
  let gapMs = 0;
  let previousAt = '';
  for (const r of last.values()) {
    const gap = nowMs - recordTimeMs(r);
    if (gap >= gapMs) {
      gapMs = gap;
      previousAt = r.time;
    }
  }
  if (gapMs > MAX_DERIVED_INTERVAL_MS) return { ok: false, reason: 'too-old', gapMs };
  if (gapMs < MIN_DERIVED_INTERVAL_MS) return { ok: false, reason: 'too-recent', gapMs };
  return { ok: true, intervalMs: Math.round(gapMs), previousAt };
}
