/**
 * Time order for a stream that is almost in time order. History lines are appended as checks
 * finish and the wall clock can step back, so a record may come a little after later ones;
 * sorting the whole history fixed that but needed all of it in memory. A min-heap of at most
 * `capacity` items emits the earliest once full: the output is exactly sorted (ties in input
 * order) whenever no item comes more than `capacity` places late, and memory is bounded always.
 */

/** A bounded reorder buffer. */
export interface ReorderBuffer<T> {
  /** Takes an item with its time. */
  push(item: T, at: number): void;
  /** Emits everything held, in order. */
  flush(): void;
  /** Items emitted after a later one already was (further out of order than the capacity). */
  readonly late: number;
  /** Most items held at once. */
  readonly peak: number;
}

/**
 * Records held for reordering by default. A round's records are appended together when its
 * slowest check ends, so disorder spans a few rounds (more with several probes on one
 * directory); 256 records is dozens of rounds. Not more: a held record outlives the young
 * generation, and a larger buffer made the garbage collector half of a fold's time.
 */
export const DEFAULT_REORDER_CAPACITY = 256;

interface Slot<T> {
  readonly item: T;
  readonly at: number;
  readonly seq: number;
}

const before = <T>(a: Slot<T>, b: Slot<T>): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** Creates a buffer that hands items (with their time) to `emit` in time order. */
export function createReorderBuffer<T>(emit: (item: T, at: number) => void, capacity = DEFAULT_REORDER_CAPACITY): ReorderBuffer<T> {
  const heap: Slot<T>[] = [];
  let seq = 0;
  let late = 0;
  let peak = 0;
  let lastAt = -Infinity;

  const swap = (i: number, j: number): void => {
    const t = heap[i] as Slot<T>;
    heap[i] = heap[j] as Slot<T>;
    heap[j] = t;
  };
  const up = (i: number): void => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Slot<T>, heap[parent] as Slot<T>)) return;
      swap(i, parent);
      i = parent;
    }
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l] as Slot<T>, heap[m] as Slot<T>)) m = l;
      if (r < heap.length && before(heap[r] as Slot<T>, heap[m] as Slot<T>)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  const pop = (): void => {
    const top = heap[0] as Slot<T>;
    const last = heap.pop() as Slot<T>;
    if (heap.length > 0) {
      heap[0] = last;
      down(0);
    }
    if (top.at < lastAt) late++;
    else lastAt = top.at;
    emit(top.item, top.at);
  };

  return {
    push(item, at) {
      heap.push({ item, at, seq: seq++ });
      up(heap.length - 1);
      if (heap.length > capacity) pop();
      if (heap.length > peak) peak = heap.length;
    },
    flush() {
      while (heap.length > 0) pop();
    },
    get late() {
      return late;
    },
    get peak() {
      return peak;
    },
  };
}
