/**
 * Seeded pseudo-random numbers. The reference service draws everything random (ids, token
 * counts, jitter, failures, faults) from these, so two services started with the same seed
 * answer the same request sequence the same way.
 */

/** A seeded source of uniform numbers. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** `digits` lowercase hex digits. */
  hex(digits: number): string;
}

/** A 32-bit hash of a string (FNV-1a, then a murmur3 finaliser), mixed with `seed`. */
export function hash32(s: string, seed = 0): number {
  let h = (0x811c9dc5 ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** sfc32: small, fast, and good enough statistically for simulated workloads. */
export function createPrng(seed: number): Prng {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const u32 = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  // The first outputs of sfc32 are correlated with the seed; discard them.
  for (let i = 0; i < 15; i++) u32();
  return {
    next: () => u32() / 4294967296,
    int: (min, max) => min + Math.floor((u32() / 4294967296) * (max - min + 1)),
    hex(digits) {
      let s = '';
      while (s.length < digits) s += u32().toString(16).padStart(8, '0');
      return s.slice(0, digits);
    },
  };
}
