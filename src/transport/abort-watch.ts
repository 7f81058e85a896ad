/**
 * One abort listener per signal instead of one per request: a run's hundreds of concurrent
 * requests share its stop signal, and adding and removing a listener on every call was a
 * measurable part of the client's cost at tens of thousands of requests per second.
 */

/** Something that can be cancelled with the signal's reason. */
export interface Cancellable {
  cancel(reason: unknown): void;
}

const watched = new WeakMap<AbortSignal, Set<Cancellable>>();

/** Cancels `c` when `signal` aborts (until `unwatchAbort`). */
export function watchAbort(signal: AbortSignal, c: Cancellable): void {
  let set = watched.get(signal);
  if (set === undefined) {
    const s = new Set<Cancellable>();
    set = s;
    watched.set(signal, s);
    signal.addEventListener(
      'abort',
      () => {
        for (const e of s) e.cancel(signal.reason);
        s.clear();
      },
      { once: true },
    );
  }
  set.add(c);
}

/** Stops watching `c` (it finished). */
export function unwatchAbort(signal: AbortSignal, c: Cancellable): void {
  watched.get(signal)?.delete(c);
}
