/**
 * Timers on the service's clock that `close()` can cancel all at once, so a closed service
 * leaves nothing pending on a real or fake clock.
 */
import type { Clock, TimerHandle } from '../core/clock.js';

/** A tracked set of clock timers. */
export interface TimerSet {
  set(atNs: number, fn: () => void): TimerHandle;
  clear(handle: TimerHandle | undefined): void;
  /** Resolves at `atNs` (never, if the set is closed first). */
  sleepUntil(atNs: number): Promise<void>;
  /** Cancels every pending timer; later `set` calls are ignored. */
  closeAll(): void;
  readonly size: number;
}

/** Creates a tracked timer set on `clock`. */
export function createTimerSet(clock: Clock): TimerSet {
  const pending = new Set<TimerHandle>();
  let closed = false;
  const dead = {} as TimerHandle;
  const set = (atNs: number, fn: () => void): TimerHandle => {
    if (closed) return dead;
    const h: TimerHandle = clock.setTimer(atNs, () => {
      pending.delete(h);
      fn();
    });
    pending.add(h);
    return h;
  };
  return {
    set,
    clear(handle) {
      if (handle === undefined || !pending.delete(handle)) return;
      clock.clearTimer(handle);
    },
    sleepUntil: (atNs) => new Promise<void>((resolve) => void set(atNs, resolve)),
    closeAll() {
      closed = true;
      for (const h of pending) clock.clearTimer(h);
      pending.clear();
    },
    get size() {
      return pending.size;
    },
  };
}
