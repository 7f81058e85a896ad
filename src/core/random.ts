/**
 * Seeded randomness shared by the load generator (arrival gaps, mix order) and the reference
 * service (ids, latencies, faults): one small generator, so a seed means the same thing
 * everywhere and runs are reproducible.
 */

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: a 32-bit generator, plenty for arrival gaps, weighted picks and simulated
 * workloads (period 2^32), with no allocation per number. The same seed gives the same sequence.
 */
export function createRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
