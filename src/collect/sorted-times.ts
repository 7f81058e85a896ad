/**
 * A sorted multiset of times (ns) answering "how many are below t" in O(log n). Times arrive
 * almost in order (samples are observed as they complete), so an insert is an append or a short
 * move near the end. Bounded: past `cap` values the oldest half is dropped and counted in
 * `dropped`, which every count includes, because a dropped value is older than anything asked
 * about (the analyser only asks about recent times).
 */

/** The multiset. */
export interface SortedTimes {
  insert(t: number): void;
  /** Values < t (dropped ones included). */
  below(t: number): number;
  /** Values ≤ t (dropped ones included). */
  atMost(t: number): number;
  readonly size: number;
}

/** Creates an empty multiset keeping at most `cap` values (default 65 536). */
export function createSortedTimes(cap = 65_536): SortedTimes {
  let values = new Float64Array(64);
  let n = 0;
  let dropped = 0;

  // First index whose value is ≥ t (strict = false) or > t (strict = true).
  const bound = (t: number, strict: boolean): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = values[mid] as number;
      if (v < t || (strict && v === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    insert(t) {
      if (n === cap) {
        const half = cap >>> 1;
        values.copyWithin(0, half, n);
        n -= half;
        dropped += half;
      }
      if (n === values.length) {
        const grown = new Float64Array(Math.min(cap, values.length * 2));
        grown.set(values);
        values = grown;
      }
      if (n === 0 || (values[n - 1] as number) <= t) {
        values[n++] = t;
        return;
      }
      const i = bound(t, true);
      values.copyWithin(i + 1, i, n);
      values[i] = t;
      n++;
    },
    below: (t) => dropped + bound(t, false),
    atMost: (t) => dropped + bound(t, true),
    get size() {
      return dropped + n;
    },
  };
}

/** Count of values < t in a sorted array. */
export function below(a: Float64Array, t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Count of values ≤ t in a sorted array. */
export function atMost(a: Float64Array, t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `values` as a sorted array. */
export const sortedOf = (values: readonly number[]): Float64Array => Float64Array.from(values).sort();
