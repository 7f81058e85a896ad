/**
 * Which of a token's windows (as the window book told them apart by Reset) each answer may have
 * been counted in. A delta Reset, whole seconds rounded up, was counted somewhere between send
 * and answer: its window ends within (send + Reset − 1, answer + Reset]. A window's end is where
 * all of its members' intervals meet (narrow when they came at different phases of a second). An
 * answer may be in each window whose end its own interval reaches, and, since a service may count
 * a request when it arrives but write its headers when it answers, in an earlier window that had
 * not ended when it was sent (never a later one: it was counted by the time its headers were
 * written), unless that window had already refused (a window that refused stays full). An epoch
 * value names its window's end. Pure.
 */
import type { EvidenceColumns } from './rate-limit-evidence.js';
import { EPOCH_MS_MIN, EPOCH_SECONDS_MIN } from './reset-semantics.js';
import { below } from './sorted-times.js';

const S = 1e6;

/**
 * For entry `i` of `c`, the windows (their `seq`) it may have been counted in, its own (`win`)
 * first. `windowUs`: a window's length at most; `accepted(i)`: the entry was admitted.
 */
export function membership(
  c: EvidenceColumns,
  win: Int32Array,
  o: { readonly startWallMs: number; readonly windowUs: number; readonly accepted: (i: number) => boolean },
): (i: number) => number[] {
  const n = c.n;
  const accepted = o.accepted;
  const endOf = (i: number): [number, number] => {
    const r = c.reset[i] as number;
    if (r > EPOCH_SECONDS_MIN) {
      const at = ((r >= EPOCH_MS_MIN ? r : r * 1000) - o.startWallMs) / 1000;
      return [at - 1, at];
    }
    return [(c.send[i] as number) / S + r - 1, (c.answer[i] as number) / S + r];
  };
  const winEnd = new Map<number, [number, number]>();
  for (let i = 0; i < n; i++) {
    const w = win[i] as number;
    if (w < 0 || Number.isNaN(c.reset[i] as number)) continue;
    const [lo, hi] = endOf(i);
    const cur = winEnd.get(w);
    if (cur === undefined) winEnd.set(w, [lo, hi]);
    else {
      const both: [number, number] = [Math.max(cur[0], lo), Math.min(cur[1], hi)];
      // Members whose intervals do not meet were placed by a coarser rule: keep the wider span.
      winEnd.set(w, both[0] <= both[1] ? both : [Math.min(cur[0], lo), Math.max(cur[1], hi)]);
    }
  }
  // A window that refused stays full: an admission sent after one of its refusals was answered is
  // in a later window.
  const firstRefusal = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const w = win[i] as number;
    if (w >= 0 && (c.status[i] as number) === 429) firstRefusal.set(w, Math.min(firstRefusal.get(w) ?? Number.POSITIVE_INFINITY, c.answer[i] as number));
  }
  const ends = [...winEnd.entries()].sort((x, y) => x[1][1] - y[1][1]);
  const endHi = Float64Array.from(ends.map(([, e]) => e[1]));
  const winLenS = o.windowUs / S;
  const EPS = 1e-3;
  return (i: number): number[] => {
    const own = win[i] as number;
    if (own < 0) return [];
    const out = [own];
    if (Number.isNaN(c.reset[i] as number)) return out;
    const epoch = (c.reset[i] as number) > EPOCH_SECONDS_MIN;
    const [lo, hi] = endOf(i);
    const s0 = (c.send[i] as number) / S;
    const a0 = (c.answer[i] as number) / S;
    const ownEnd = winEnd.get(own)?.[1] ?? hi;
    // Windows that end after it was sent (less a second) and began before it was answered.
    for (let k = below(endHi, Math.min(lo, s0) - EPS); k < ends.length; k++) {
      const [w, [elo, ehi]] = ends[k] as [number, [number, number]];
      if (elo - winLenS > Math.max(hi, a0) + EPS) break;
      if (w === own) continue;
      const named = !epoch && elo < hi + EPS && lo < ehi + EPS;
      const earlier = ehi < ownEnd - EPS && s0 < ehi + EPS && !(accepted(i) && (firstRefusal.get(w) ?? Number.POSITIVE_INFINITY) < (c.send[i] as number));
      if (named || earlier) out.push(w);
    }
    return out;
  };
}
