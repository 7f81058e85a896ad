/**
 * `load`: what the executor was asked to do, and did. Counts add; the requested rate adds (each
 * shard asked for its share); the achieved rate is computed again over the time at least one
 * shard's schedule ran (each placed on the wall clock by its start), so shards started apart are
 * not credited with the sum of their rates.
 */
import { bySection, fields, max, recompute, round3, setting, sum, sumOrNull, type Part, type Rule } from './merge-kit.js';
import { worst } from './merge-histograms.js';
import type { BuildReportInput, FullSection, ScopeState } from './project-kit.js';
import type { LoadReport } from './load-schema.js';

/**
 * Seconds during which at least one part was active: the union of `[start, start + active)`
 * over the parts, each placed on the wall clock by its start (a gap between shards is no one's).
 */
function unionS(spans: readonly { readonly startMs: number; readonly activeS: number }[]): number {
  if (spans.length === 0) return 0;
  const origin = Math.min(...spans.map((s) => s.startMs));
  const sorted = spans.map((s) => [s.startMs - origin, s.startMs - origin + s.activeS * 1000] as const).sort((a, b) => a[0] - b[0]);
  let totalMs = 0;
  let [from, to] = sorted[0] as readonly [number, number];
  for (const [a, b] of sorted.slice(1)) {
    if (a > to) {
      totalMs += to - from;
      [from, to] = [a, b];
    } else to = Math.max(to, b);
  }
  return (totalMs + to - from) / 1000;
}

/** The merged window: as one report, over its schedule when it has one, else over its duration. */
const windowS = (parents: readonly Part<LoadReport>[]): number =>
  round3(unionS(parents.map((p) => ({ startMs: p.source.startMs, activeS: p.value.scheduleS ?? p.source.durationS }))));

/** How `load` merges (a scenario's `load` as the top level's). */
export const loadMerge: Rule<LoadReport> = fields<LoadReport>({
  executor: setting({ label: 'the executor' }),
  // Each shard asked for its share: the shares add; null (closed model) stays null.
  targetRatePerS: sumOrNull,
  achievedRatePerS: recompute((m, parents) => {
    const w = windowS(parents);
    return w > 0 ? round3((m.started ?? 0) / w) : 0;
  }),
  started: sum,
  dropped: sum,
  // Kept only as a summary (no histogram): each statistic takes its worst shard.
  scheduleLagMs: worst,
  cancelled: sum,
  cut: sum,
  // A setting written with `cut`: named when every part that says one says the same, else left
  // out (as a run of scenarios with different grace periods leaves it out).
  gracefulStopS: setting({ disagree: 'absent' }),
  // The time at least one shard's schedule ran; only when every part says its schedule.
  scheduleS: recompute((_m, parents) => (parents.every((p) => p.value.scheduleS !== undefined) ? windowS(parents) : undefined)),
  // Threads that generated the load, over all shards.
  workers: sum,
  missed: sum,
  // The latest any shard joined (each shard's own is in the SHARDS_NOT_TOGETHER warning).
  joinedAtS: max<number>(),
});

/** `load` of a report or a scenario section: the achieved rate over the schedule's own window. */
export function loadOf(load: BuildReportInput['load'], durationS: number): LoadReport {
  // Rounded before dividing, so the report's own rate and scheduleS agree (and merge gives them back).
  const scheduleS = load.scheduleS === undefined ? undefined : round3(load.scheduleS);
  const windowS = scheduleS ?? durationS;
  return {
    executor: load.executor,
    targetRatePerS: load.targetRatePerS,
    achievedRatePerS: windowS > 0 ? round3(load.started / windowS) : 0,
    started: load.started,
    dropped: load.dropped,
    scheduleLagMs: load.scheduleLagMs,
    ...(load.cancelled !== undefined && load.cancelled > 0 ? { cancelled: load.cancelled } : {}),
    ...(load.cut !== undefined && load.cut > 0 ? { cut: load.cut, ...(load.gracefulStopS !== undefined ? { gracefulStopS: load.gracefulStopS } : {}) } : {}),
    ...(scheduleS !== undefined ? { scheduleS } : {}),
    ...(load.missed !== undefined && load.missed > 0 ? { missed: load.missed } : {}),
    ...(load.joinedAtS !== undefined && load.joinedAtS > 0 ? { joinedAtS: round3(load.joinedAtS) } : {}),
  };
}

/** `load`: projected from the executor's counts, merged by the rules above. */
export const loadSection: FullSection<LoadReport, object, ScopeState> = { ...bySection(loadMerge), project: (s) => loadOf(s.load, s.durationS) };
