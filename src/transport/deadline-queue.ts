/**
 * Whole-request deadlines, each fired at its own instant: one min-heap of the requests that have
 * one, and one timer armed at the earliest. Insert and removal cost O(log n) (10,000 streams in
 * flight: 14 steps each), with no timer per request and no sweep, so a deadline fires as soon as
 * the event loop lets the timer run, whatever the other deadlines are. Never early: a timer that
 * wakes before the earliest deadline (libuv's clock is cached and whole milliseconds) sleeps again.
 */

/** What the queue holds: a request with a deadline. */
export interface Expiring {
  /** The deadline, in the queue's clock (`performance.now()` ms). */
  readonly deadlineAtMs: number;
  /** Its place in the heap, owned by the queue; -1 when not queued. */
  deadlineSlot: number;
  /** Called once when the deadline passed (the queue has dropped it already). */
  expire(): void;
}

/** The clock and timers of a queue (injected in tests). */
export interface DeadlineTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: DeadlineTimers = {
  now: () => performance.now(),
  // unref: a pending deadline alone never keeps the process alive (its request does).
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** The deadlines of one transport. */
export class DeadlineQueue<T extends Expiring> {
  private readonly heap: T[] = [];
  private timer: unknown = undefined;
  /** When the armed timer is due (Infinity when none is). */
  private armedAtMs = Infinity;

  constructor(private readonly timers: DeadlineTimers = REAL_TIMERS) {}

  /** Requests queued. */
  get size(): number {
    return this.heap.length;
  }

  /** Queues `x` by its `deadlineAtMs`. */
  add(x: T): void {
    x.deadlineSlot = this.heap.length;
    this.heap.push(x);
    this.up(x.deadlineSlot);
    if (this.heap[0] === x) this.arm();
  }

  /** Drops `x` (it settled); nothing when it is not queued. */
  remove(x: T): void {
    const i = x.deadlineSlot;
    if (i < 0 || this.heap[i] !== x) return;
    x.deadlineSlot = -1;
    const last = this.heap.pop() as T;
    if (last !== x) {
      this.heap[i] = last;
      last.deadlineSlot = i;
      this.down(i);
      this.up(last.deadlineSlot);
    }
    // A timer armed for an earlier head just wakes, finds nothing due and sleeps again.
    if (this.heap.length === 0) this.disarm();
  }

  /** Stops the timer (the transport closed); what is queued stays queued. */
  close(): void {
    this.disarm();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedAtMs = Infinity;
    const now = this.timers.now();
    const heap = this.heap;
    for (let head = heap[0]; head !== undefined && head.deadlineAtMs <= now; head = heap[0]) {
      this.remove(head);
      try {
        head.expire();
      } catch {
        // One request's failure must not keep the others' deadlines from firing.
      }
    }
    this.arm();
  };

  private arm(): void {
    const head = this.heap[0];
    if (head === undefined) return;
    if (this.timer !== undefined && this.armedAtMs <= head.deadlineAtMs) return;
    this.disarm();
    this.armedAtMs = head.deadlineAtMs;
    this.timer = this.timers.set(this.fire, Math.max(1, Math.ceil(head.deadlineAtMs - this.timers.now())));
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.armedAtMs = Infinity;
  }

  private up(i: number): void {
    const heap = this.heap;
    const x = heap[i] as T;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as T;
      if (p.deadlineAtMs <= x.deadlineAtMs) break;
      heap[i] = p;
      p.deadlineSlot = i;
      i = parent;
    }
    heap[i] = x;
    x.deadlineSlot = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const x = heap[i] as T;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (heap[r] as T).deadlineAtMs < (heap[l] as T).deadlineAtMs ? r : l;
      const child = heap[c] as T;
      if (child.deadlineAtMs >= x.deadlineAtMs) break;
      heap[i] = child;
      child.deadlineSlot = i;
      i = c;
    }
    heap[i] = x;
    x.deadlineSlot = i;
  }
}
