/**
 * A small ring of identifiers seen during a run (run ids for `getRun`), so read operations
 * address resources the run itself created, without growing with the run.
 */
export interface RecentIds {
  add(id: string): void;
  /** The next id in round-robin order, or undefined when none was seen yet. */
  next(): string | undefined;
  readonly size: number;
}

/** A ring of at most `capacity` ids. */
export function createRecentIds(capacity = 64): RecentIds {
  const ids: string[] = [];
  let write = 0;
  let read = 0;
  return {
    add(id) {
      if (ids.length < capacity) ids.push(id);
      else ids[write] = id;
      write = (write + 1) % capacity;
    },
    next() {
      if (ids.length === 0) return undefined;
      read = (read + 1) % ids.length;
      return ids[read];
    },
    get size() {
      return ids.length;
    },
  };
}
