/**
 * Time sources. Everything that measures or schedules takes a `Clock`, so tests drive time
 * by hand (`createFakeClock`) and never sleep.
 *
 * Monotonic time is a `number` of nanoseconds from an arbitrary origin: a double holds
 * integer nanoseconds exactly for 104 days, and avoids a BigInt allocation per reading.
 */

/** Opaque handle of a pending timer. */
export type TimerHandle = { readonly __timer: unique symbol };

/** A monotonic clock with one-shot timers, plus wall time for timestamps. */
export interface Clock {
  /** Monotonic nanoseconds; never goes backwards. */
  nowNs(): number;
  /** Wall-clock milliseconds since the Unix epoch (for timestamps only, never durations). */
  wallMs(): number;
  /** Calls `fn` once, as soon as possible at or after monotonic instant `atNs`. */
  setTimer(atNs: number, fn: () => void): TimerHandle;
  /** Cancels a pending timer; a fired or cancelled one is ignored. */
  clearTimer(handle: TimerHandle): void;
}

/** Nanoseconds per millisecond. */
export const NS_PER_MS = 1e6;
/** Nanoseconds per second. */
export const NS_PER_S = 1e9;

/**
 * The timer primitives the system clock schedules with: Node's own by default, replaced in
 * tests to see which wait a timer was given without waiting.
 */
export interface TimerHost {
  /** Monotonic milliseconds (`performance.now()`). */
  now(): number;
  /** Wall-clock milliseconds of `now()`'s origin (`performance.timeOrigin`). */
  readonly timeOrigin: number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(h: unknown): void;
  setImmediate(fn: () => void): unknown;
  clearImmediate(h: unknown): void;
}

const NODE_TIMERS: TimerHost = {
  now: () => performance.now(),
  timeOrigin: performance.timeOrigin,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setImmediate: (fn) => setImmediate(fn),
  clearImmediate: (h) => clearImmediate(h as NodeJS.Immediate),
};

interface SystemTimer {
  readonly immediate: boolean;
  readonly h: unknown;
}

/**
 * The real clock (Node's timers unless `host` is given). A timer already due runs on
 * `setImmediate` (after pending I/O, without the 1 ms a timeout would add); anything later
 * sleeps in a timeout of whole milliseconds, rounded up so it rarely wakes before its instant.
 *
 * Never a busy wait: waking on `setImmediate` until a sub-millisecond instant came spun a whole
 * core at 2,000 arrivals/s and more, and a process that never sleeps loses its time slice to
 * anything sharing its core (bursts, empty 50 ms buckets). Callers that schedule instants closer
 * than a millisecond (the open model) release everything due on each wake, each with its own
 * intended time, so the coarser wake costs some lag, not rate or evenness.
 */
export function createSystemClock(host: TimerHost = NODE_TIMERS): Clock {
  const origin = host.timeOrigin;
  return {
    nowNs: () => host.now() * NS_PER_MS,
    wallMs: () => origin + host.now(),
    setTimer(atNs, fn) {
      const delayMs = atNs / NS_PER_MS - host.now();
      const t: SystemTimer = delayMs <= 0 ? { immediate: true, h: host.setImmediate(fn) } : { immediate: false, h: host.setTimeout(fn, Math.max(1, Math.ceil(delayMs))) };
      return t as unknown as TimerHandle;
    },
    clearTimer(handle) {
      const t = handle as unknown as SystemTimer;
      if (t.immediate) host.clearImmediate(t.h);
      else host.clearTimeout(t.h);
    },
  };
}

/** A clock that moves only when told to. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ns`, firing due timers in time order with `nowNs()` at each one's instant. */
  advance(ns: number): void;
  /** Moves time to `atNs` (not backwards), firing due timers on the way. */
  advanceTo(atNs: number): void;
  /** Fires timers until none remain or `limitNs` is reached; returns how many fired. */
  runUntilIdle(limitNs?: number): number;
  /** Number of timers not yet fired or cancelled. */
  pending(): number;
}

interface FakeTimer {
  atNs: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A deterministic clock for tests. Timers at the same instant fire in the order they were set;
 * a timer set for the past fires at the next advance, with `nowNs()` unchanged.
 */
export function createFakeClock(options: { startNs?: number; wallStartMs?: number } = {}): FakeClock {
  let now = options.startNs ?? 0;
  const startNs = now;
  const wallStartMs = options.wallStartMs ?? Date.UTC(2026, 0, 1);
  let seq = 0;
  // A sorted array is plenty for tests: timers number in the thousands at most.
  const timers: FakeTimer[] = [];

  const insert = (t: FakeTimer): void => {
    let i = timers.length;
    while (i > 0) {
      const prev = timers[i - 1] as FakeTimer;
      if (prev.atNs < t.atNs || (prev.atNs === t.atNs && prev.seq < t.seq)) break;
      i--;
    }
    timers.splice(i, 0, t);
  };

  const fireUntil = (limitNs: number): number => {
    let fired = 0;
    for (;;) {
      const next = timers[0];
      if (next === undefined || next.atNs > limitNs) break;
      timers.shift();
      if (next.cancelled) continue;
      if (next.atNs > now) now = next.atNs;
      fired++;
      next.fn();
    }
    return fired;
  };

  const clock: FakeClock = {
    nowNs: () => now,
    wallMs: () => wallStartMs + (now - startNs) / NS_PER_MS,
    setTimer(atNs, fn) {
      const t: FakeTimer = { atNs, seq: seq++, fn, cancelled: false };
      insert(t);
      return t as unknown as TimerHandle;
    },
    clearTimer(handle) {
      (handle as unknown as FakeTimer).cancelled = true;
    },
    advance(ns) {
      clock.advanceTo(now + ns);
    },
    advanceTo(atNs) {
      if (atNs < now) return;
      fireUntil(atNs);
      now = atNs;
    },
    runUntilIdle(limitNs = Number.MAX_SAFE_INTEGER) {
      return fireUntil(limitNs);
    },
    pending: () => timers.reduce((n, t) => n + (t.cancelled ? 0 : 1), 0),
  };
  return clock;
}
