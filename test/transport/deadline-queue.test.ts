/** The deadline heap with an injected clock: each deadline fires at its instant, in order, never early, with one timer. */
import { describe, expect, it } from 'vitest';
import { DeadlineQueue, type DeadlineTimers, type Expiring } from '../../src/transport/deadline-queue.js';

/** Timers on a clock the test moves; at most one may be pending (the queue's one timer). */
function fakeTimers(): DeadlineTimers & { advance(ms: number): void; pending: number; sets: number } {
  let now = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let next = 0;
  const t = {
    sets: 0,
    now: () => now,
    set(fn: () => void, ms: number) {
      t.sets++;
      const id = next++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clear(h: unknown) {
      timers = timers.filter((x) => x.id !== h);
    },
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const first = timers[0];
        if (first === undefined || first.at > end) break;
        timers.shift();
        now = first.at;
        first.fn();
      }
      now = end;
    },
    get pending() {
      return timers.length;
    },
  };
  return t;
}

function item(deadlineAtMs: number, fired: [number, number][], timers: DeadlineTimers): Expiring {
  return {
    deadlineAtMs,
    deadlineSlot: -1,
    expire() {
      fired.push([deadlineAtMs, timers.now()]);
    },
  };
}

describe('DeadlineQueue', () => {
  it('fires every deadline at its instant, in order, whatever order they came in', () => {
    const timers = fakeTimers();
    const q = new DeadlineQueue(timers);
    const fired: [number, number][] = [];
    const at = [1500, 40, 700, 41, 1500, 3, 999, 250];
    for (const d of at) q.add(item(d, fired, timers));
    expect(timers.pending).toBe(1);
    timers.advance(2000);
    expect(fired.map(([d]) => d)).toEqual([...at].sort((a, b) => a - b));
    for (const [d, when] of fired) expect(when).toBe(d);
    expect(q.size).toBe(0);
    expect(timers.pending).toBe(0);
  });

  it('a removed request never fires; the timer goes when the last one is removed', () => {
    const timers = fakeTimers();
    const q = new DeadlineQueue(timers);
    const fired: [number, number][] = [];
    const items = [100, 200, 300, 400, 500].map((d) => item(d, fired, timers));
    for (const x of items) q.add(x);
    q.remove(items[0] as Expiring);
    q.remove(items[2] as Expiring);
    q.remove(items[2] as Expiring);
    expect((items[0] as Expiring).deadlineSlot).toBe(-1);
    timers.advance(450);
    expect(fired).toEqual([
      [200, 200],
      [400, 400],
    ]);
    q.remove(items[4] as Expiring);
    expect(timers.pending).toBe(0);
  });

  it('an earlier deadline re-arms the one timer; a later one does not', () => {
    const timers = fakeTimers();
    const q = new DeadlineQueue(timers);
    const fired: [number, number][] = [];
    q.add(item(1000, fired, timers));
    q.add(item(2000, fired, timers));
    expect(timers.sets).toBe(1);
    q.add(item(10, fired, timers));
    expect(timers.sets).toBe(2);
    expect(timers.pending).toBe(1);
    timers.advance(10);
    expect(fired).toEqual([[10, 10]]);
  });

  it('never fires early: a timer that wakes before the deadline sleeps again', () => {
    let now = 0;
    let pending: (() => void) | undefined;
    // A timer that fires 3 ms early, as libuv's cached millisecond clock may.
    const early: DeadlineTimers = {
      now: () => now,
      set: (fn, ms) => {
        pending = fn;
        return ms;
      },
      clear: () => {
        pending = undefined;
      },
    };
    const q = new DeadlineQueue(early);
    const fired: [number, number][] = [];
    q.add(item(100.5, fired, early));
    now = 97.5;
    pending?.();
    expect(fired).toEqual([]);
    now = 100.5;
    pending?.();
    expect(fired).toEqual([[100.5, 100.5]]);
  });

  it('keeps 10,000 deadlines in one heap with one timer', () => {
    const timers = fakeTimers();
    const q = new DeadlineQueue(timers);
    const fired: [number, number][] = [];
    const items = Array.from({ length: 10_000 }, (_, i) => item(1 + ((i * 7919) % 10_000), fired, timers));
    for (const x of items) q.add(x);
    for (let i = 0; i < items.length; i += 2) q.remove(items[i] as Expiring);
    expect(timers.pending).toBe(1);
    timers.advance(20_000);
    expect(fired.length).toBe(5000);
    for (const [d, when] of fired) expect(when).toBe(d);
    for (let i = 1; i < fired.length; i++) expect((fired[i] as [number, number])[0]).toBeGreaterThanOrEqual((fired[i - 1] as [number, number])[0]);
  });
});
