import type { Job } from '../../src/load/index.js';

/** A job that records every call and settles only when told to. */
export interface ControlledJob {
  readonly job: Job;
  readonly intended: number[];
  readonly signals: AbortSignal[];
  /** Settles the oldest `n` unsettled calls. */
  settle(n?: number): void;
  readonly open: number;
  /** Most jobs that were unsettled at once. */
  readonly maxOpen: number;
}

export function controlledJob(): ControlledJob {
  const intended: number[] = [];
  const signals: AbortSignal[] = [];
  const resolvers: (() => void)[] = [];
  let maxOpen = 0;
  return {
    intended,
    signals,
    job(intendedNs, signal) {
      intended.push(intendedNs);
      signals.push(signal);
      return new Promise<void>((resolve) => {
        resolvers.push(resolve);
        maxOpen = Math.max(maxOpen, resolvers.length);
      });
    },
    settle(n = resolvers.length) {
      for (const r of resolvers.splice(0, n)) r();
    },
    get open() {
      return resolvers.length;
    },
    get maxOpen() {
      return maxOpen;
    },
  };
}

/** Lets pending promise callbacks run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A job that settles at once and records its intended instants. */
export function instantJob(into: number[]): Job {
  return (intendedNs) => {
    into.push(intendedNs);
    return Promise.resolve();
  };
}
