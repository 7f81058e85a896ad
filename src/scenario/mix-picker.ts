/**
 * Weighted choice of the next request kind by smooth weighted round-robin (as in nginx): every
 * pick adds each weight to its entry's credit, takes the entry with the most credit and charges
 * it the total. Counts after n picks stay within a bounded distance of n·weight, so long-run
 * proportions are exact and kinds interleave evenly instead of clumping as random draws do.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { DEFAULT_SEED } from '../load/create-executor.js';
import { createRandom } from '../load/prng.js';
import type { ResolvedMixEntry } from './types.js';

/**
 * Returns a picker over `mix` (weights > 0, any sum). The seed sets the starting credits, so
 * shards or runs with different seeds interleave differently; the same seed repeats the same
 * sequence. Each pick is allocation-free.
 */
export function createMixPicker(mix: readonly ResolvedMixEntry[], seed: number = DEFAULT_SEED): () => ResolvedMixEntry {
  const n = mix.length;
  if (n === 0) throw new InvalidArgumentError('mix must have at least one entry');
  const weights = new Float64Array(n);
  let total = 0;
  mix.forEach((e, i) => {
    if (!(e.weight > 0) || !Number.isFinite(e.weight)) {
      throw new InvalidArgumentError(`mix[${i}].weight must be a finite number > 0, got ${e.weight}`);
    }
    weights[i] = e.weight;
    total += e.weight;
  });
  const credit = new Float64Array(n);
  const random = createRandom(seed);
  for (let i = 0; i < n; i++) credit[i] = random() * (weights[i] as number);
  if (n === 1) {
    const only = mix[0] as ResolvedMixEntry;
    return () => only;
  }
  return () => {
    let best = 0;
    let bestCredit = -Infinity;
    for (let i = 0; i < n; i++) {
      const c = (credit[i] as number) + (weights[i] as number);
      credit[i] = c;
      if (c > bestCredit) {
        bestCredit = c;
        best = i;
      }
    }
    credit[best] = bestCredit - total;
    return mix[best] as ResolvedMixEntry;
  };
}
