/**
 * The service's rate-limit windows as the answers reveal them, for one token. A response with a
 * Reset header belongs to the window that Reset names: for an epoch value the value itself; for
 * a delta, the instant it points at (arrival + delta), matched within 1.25 s because a delta is
 * whole seconds counted when the service answered. Keying by Reset rather than by arrival order
 * keeps late responses (a long stream observed seconds after it was admitted) in the window that
 * admitted them. Remaining jumping back up by more than half the limit opens a new window too
 * (windows of a second or two share keys; without Reset it is the only sign).
 *
 * A window that opens while the previous one's reset is still ahead, or sooner after it than the
 * longest Reset seen, is no fixed window: the limiter rolls (a sliding log, a token bucket).
 */
import type { HeaderViolationKind } from './rate-limit-headers.js';
import { EPOCH_MS_MIN, EPOCH_SECONDS_MIN } from './reset-semantics.js';
import { createSortedTimes, type SortedTimes } from './sorted-times.js';

/** One window and what the analyser keeps of it. */
export interface RateLimitWin {
  readonly seq: number;
  readonly key: number | undefined;
  readonly epoch: boolean;
  readonly resetRaw: string | undefined;
  readonly resetAtNs: number | undefined;
  accepted: number;
  rejected: number;
  limit: number | undefined;
  minAccRemaining: number | undefined;
  /** The latest answer seen (by arrival) and its Remaining: a request sent after it must not see more. */
  lastAnswerNs: number;
  lastAnswerRemaining: number | undefined;
  /** Send and answer times of every response in the window, and answer times of the accepted ones. */
  detail: { readonly sent: SortedTimes; readonly answered: SortedTimes; readonly accAnswered: SortedTimes } | undefined;
  /** Findings that hold only for a fixed window: reported unless the limiter turns out to roll. */
  readonly fixedFindings: Map<HeaderViolationKind, number>;
}

/** Options of `createWindowBook`. */
export interface WindowBookOptions {
  readonly runStartNs: number;
  /** Wall-clock ms at `runStartNs`: places epoch Reset values on the monotonic clock. */
  readonly runStartWallMs?: number;
  readonly maxWindows: number;
  /** The token's advertised limit so far (for a window that has not seen one). */
  readonly advertised: () => number | undefined;
  /** Called with a window that leaves the book (older than `maxWindows`). */
  readonly onDrop: (gone: RateLimitWin) => void;
}

/** The windows of one token. */
export interface WindowBook {
  /**
   * The window an answer belongs to, opened if it is new (`resetRaw`: the Reset header as sent;
   * `sendNs`: when the request was sent, default its arrival).
   */
  windowOf(resetRaw: string | undefined, reset: number | undefined, remaining: number | undefined, arrivalNs: number, accepted: boolean, sendNs?: number): RateLimitWin;
  /** The windows kept, oldest first. */
  readonly windows: readonly RateLimitWin[];
  /** Windows that left the book. */
  readonly dropped: number;
  /** True once the limiter's windows were seen to overlap. */
  readonly rolling: boolean;
}

/** How many recent windows a response may belong to (late responses are seconds late, not minutes). */
const MATCH_DEPTH = 16;
/** Times kept per window (a window of more answers than this counts its oldest as dropped). */
const WINDOW_TIMES = 16_384;

/** Creates an empty book. */
export function createWindowBook(o: WindowBookOptions): WindowBook {
  const windows: RateLimitWin[] = [];
  let dropped = 0;
  let seq = 0;
  let rolling = false;
  // The longest a Reset has pointed ahead (s): a fixed window is about that long.
  let longestResetS = 0;

  const newWindow = (key: number | undefined, epoch: boolean, resetRaw: string | undefined, resetAtNs: number | undefined): RateLimitWin => {
    const w: RateLimitWin = {
      seq: seq++,
      key,
      epoch,
      resetRaw,
      resetAtNs,
      accepted: 0,
      rejected: 0,
      limit: undefined,
      minAccRemaining: undefined,
      lastAnswerNs: -Infinity,
      lastAnswerRemaining: undefined,
      detail: { sent: createSortedTimes(WINDOW_TIMES), answered: createSortedTimes(WINDOW_TIMES), accAnswered: createSortedTimes(WINDOW_TIMES) },
      fixedFindings: new Map(),
    };
    windows.push(w);
    // Only the windows a response may still join keep their times.
    const old = windows[windows.length - 1 - MATCH_DEPTH];
    if (old !== undefined) old.detail = undefined;
    if (windows.length > o.maxWindows) {
      o.onDrop(windows.shift() as RateLimitWin);
      dropped++;
    }
    return w;
  };

  const wallToNs = (wallMs: number): number | undefined =>
    o.runStartWallMs === undefined ? undefined : o.runStartNs + (wallMs - o.runStartWallMs) * 1e6;

  /** Remaining back up by more than half the limit: the service opened a new window. */
  const jumpedUp = (w: RateLimitWin, remaining: number | undefined): boolean => {
    if (remaining === undefined || w.minAccRemaining === undefined) return false;
    const limit = w.limit ?? o.advertised();
    return remaining - w.minAccRemaining > (limit === undefined ? 0 : Math.max(1, Math.floor(limit / 2)));
  };

  return {
    windowOf(resetRaw, reset, remaining, arrivalNs, accepted, sendNs = arrivalNs) {
      if (reset !== undefined) {
        const epoch = reset > EPOCH_SECONDS_MIN;
        const key = reset >= EPOCH_MS_MIN ? reset / 1000 : epoch ? reset : arrivalNs / 1e9 + reset;
        const aheadNs = epoch ? (wallToNs(key * 1000) ?? arrivalNs) - arrivalNs : reset * 1e9;
        if (aheadNs / 1e9 > longestResetS) longestResetS = aheadNs / 1e9;
        const tolerance = epoch ? 0.5 : 1.25;
        // A delta was counted somewhere between send and arrival: an answer that came long after
        // it was sent may name a window whose key is as early as its send plus the delta.
        const lo = epoch ? key - tolerance : Math.min(key, sendNs / 1e9 + reset) - tolerance;
        for (let i = windows.length - 1; i >= Math.max(0, windows.length - MATCH_DEPTH); i--) {
          const w = windows[i] as RateLimitWin;
          if (w.key !== undefined && w.epoch === epoch && w.key >= lo && w.key <= key + tolerance) {
            if (accepted && i === windows.length - 1 && jumpedUp(w, remaining)) break;
            return w;
          }
        }
        const resetAtNs = epoch ? wallToNs(key * 1000) : arrivalNs + reset * 1e9;
        const newest = windows[windows.length - 1];
        // A window reopened under the same key (Remaining jumped back up before the reset it
        // named) is a broken promise, not a second window beside the first.
        if (newest?.key !== undefined && newest.epoch === epoch && Math.abs(key - newest.key) > tolerance) {
          if (newest.resetAtNs !== undefined && newest.resetAtNs - arrivalNs > tolerance * 1e9) rolling = true;
          // Only an admission says a window opened this soon: a refusal whose Reset points at
          // itself (0: "now") while it refuses breaks a promise, and is no sign of a rolling limiter.
          if (accepted && key - newest.key < longestResetS - tolerance) rolling = true;
        }
        return newWindow(key, epoch, resetRaw, resetAtNs);
      }
      const current = windows[windows.length - 1];
      if (current === undefined || jumpedUp(current, remaining)) return newWindow(undefined, false, resetRaw, undefined);
      return current;
    },
    get windows() {
      return windows;
    },
    get dropped() {
      return dropped;
    },
    get rolling() {
      return rolling;
    },
  };
}
