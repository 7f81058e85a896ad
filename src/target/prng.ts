/**
 * Seeded pseudo-random numbers. The reference service draws everything random (ids, token
 * counts, jitter, failures, faults) from these, so two services started with the same seed
 * answer the same request sequence the same way.
 */

import { createRandom } from '../core/random.js';

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

/** The shared generator of core, with the helpers the service draws ids and counts with. */
export function createPrng(seed: number): Prng {
  const next = createRandom(seed);
  const u32 = (): number => Math.floor(next() * 4294967296);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    hex(digits) {
      let s = '';
      while (s.length < digits) s += u32().toString(16).padStart(8, '0');
      return s.slice(0, digits);
    },
  };
}
