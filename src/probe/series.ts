/**
 * Records to outcome series: one per check, and the overall series of rounds. Pure.
 *
 * Overall, a round is **down when any of its checks failed** (not only when all did): the
 * service is up for a user only if every operation they rely on works, and the stricter
 * reading keeps a broken stream endpoint from hiding behind a healthy flow list.
 */
import { recordTimeMs, type ProbeRecord } from './record.js';

/** The outcome of one probe (or one round), standing for `intervalMs` from `timeMs`. */
export interface OutcomePoint {
  readonly timeMs: number;
  readonly success: boolean;
  readonly intervalMs: number;
}

/** Name of the overall series in reports and events. */
export const OVERALL = 'overall';

function byTime(a: OutcomePoint, b: OutcomePoint): number {
  return a.timeMs - b.timeMs;
}

/** One series per check that has records, in order of first appearance; points in time order. */
export function seriesByCheck(records: readonly ProbeRecord[]): Map<string, OutcomePoint[]> {
  const out = new Map<string, OutcomePoint[]>();
  for (const r of records) {
    let list = out.get(r.check);
    if (list === undefined) out.set(r.check, (list = []));
    list.push({ timeMs: recordTimeMs(r), success: r.success, intervalMs: r.intervalMs });
  }
  for (const list of out.values()) list.sort(byTime);
  return out;
}

/**
 * The overall series: one point per round (records sharing `instance` and `round`), at the
 * round's earliest check, successful only when every check of the round succeeded.
 */
export function overallSeries(records: readonly ProbeRecord[]): OutcomePoint[] {
  const rounds = new Map<string, { timeMs: number; success: boolean; intervalMs: number }>();
  for (const r of records) {
    const key = `${r.instance}#${r.round}`;
    const t = recordTimeMs(r);
    const round = rounds.get(key);
    if (round === undefined) rounds.set(key, { timeMs: t, success: r.success, intervalMs: r.intervalMs });
    else {
      round.timeMs = Math.min(round.timeMs, t);
      round.success &&= r.success;
      round.intervalMs = Math.max(round.intervalMs, r.intervalMs);
    }
  }
  return [...rounds.values()].sort(byTime);
}
