/**
 * The first 429's place among the requests by send order (report.json `rateLimit.first429`):
 * send times of recent samples are kept until it arrives, then later samples sent before it move
 * it back. Bounded: a ring of the last 4,096 send times.
 */

/** Send times kept before the first 429, to place it by send order. */
const START_RING = 4096;

/** Tracks the first 429's position. */
export interface First429Tracker {
  /** A response (or non-response) to a request sent at `startNs`. */
  sent(startNs: number): void;
  /** A 429 to a request sent at `startNs` (places it when it is the first). */
  refused(startNs: number): void;
  /** The first 429: its send time and 1-based position by send order. */
  first(): { readonly startNs: number; readonly index: number } | undefined;
}

/** Creates an empty tracker. */
export function createFirst429Tracker(): First429Tracker {
  const ring = new Float64Array(START_RING);
  let ringCount = 0;
  let first429: { startNs: number; index: number } | undefined;
  return {
    sent(startNs) {
      if (first429 === undefined) {
        ring[ringCount % START_RING] = startNs;
        ringCount++;
      } else if (startNs < first429.startNs) {
        first429.index++;
      }
    },
    refused(startNs) {
      if (first429 !== undefined) return;
      // Samples that left the ring were observed ≥ 4096 samples ago: they were surely sent earlier.
      let before = Math.max(0, ringCount - START_RING);
      const n = Math.min(ringCount, START_RING);
      for (let i = 0; i < n; i++) if ((ring[i] as number) < startNs) before++;
      first429 = { startNs, index: before + 1 };
    },
    first: () => first429,
  };
}
