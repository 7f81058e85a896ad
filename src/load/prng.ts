/**
 * Seeded randomness for schedules and mixes: core's generator, shard seeds, and the normal
 * and gamma samplers arrival gaps need.
 */

import { InvalidArgumentError } from '../core/errors.js';
import type { Random } from '../core/random.js';

export { createRandom, type Random } from '../core/random.js';

/** Derives the seed of shard `index` so shards draw independent sequences; shard 0 keeps `seed`. */
export function shardSeed(seed: number, index: number): number {
  return (seed ^ Math.imul(index, 0x9e3779b1)) >>> 0;
}

/** Standard normal numbers by Box–Muller, keeping the spare of each pair. */
function createNormal(random: Random): () => number {
  let spare = 0;
  let hasSpare = false;
  return () => {
    if (hasSpare) {
      hasSpare = false;
      return spare;
    }
    // 1 - u is in (0, 1], so the log is finite.
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const theta = 2 * Math.PI * random();
    spare = r * Math.sin(theta);
    hasSpare = true;
    return r * Math.cos(theta);
  };
}

/**
 * Samples Gamma(shape, 1) by Marsaglia–Tsang (2000). For shape < 1 it samples shape + 1 and
 * scales by u^(1/shape), the standard boost. Mean is `shape`, variance `shape`.
 */
export function createGammaSampler(shape: number, random: Random): () => number {
  if (!(shape > 0) || !Number.isFinite(shape)) throw new InvalidArgumentError(`gamma shape must be > 0, got ${shape}`);
  const boost = shape < 1;
  const d = (boost ? shape + 1 : shape) - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  const invShape = 1 / shape;
  const normal = createNormal(random);
  return () => {
    let sample: number;
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = random();
      const x2 = x * x;
      if (u < 1 - 0.0331 * x2 * x2 || Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) {
        sample = d * v;
        break;
      }
    }
    return boost ? sample * Math.pow(random(), invShape) : sample;
  };
}
