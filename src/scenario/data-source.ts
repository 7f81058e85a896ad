/**
 * Rows for iterations: a function of the iteration's index, so the same seed gives every
 * iteration the same row whatever the timing, and a row costs nothing to hand out.
 */
import { createRandom } from '../core/random.js';
import type { DataOrder, ResolvedData } from './data-schema.js';
import type { DataRow } from './journey.js';

/** Rows of a scenario's data, one per iteration; undefined when `unique` rows ran out. */
export interface RowSource {
  /** How many distinct rows there are (undefined for synthetic prompts: unbounded). */
  readonly size: number | undefined;
  row(iteration: number): DataRow | undefined;
}

/** One 32-bit hash of (seed, index): a random pick that depends on nothing but its inputs. */
function mix32(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Rows of a file taken in `order`. `rows` must not be empty. */
export function createRowSource(rows: readonly DataRow[], order: DataOrder, seed: number): RowSource {
  const n = rows.length;
  switch (order) {
    case 'sequential':
      return { size: n, row: (i) => rows[i % n] };
    case 'unique':
      return { size: n, row: (i) => rows[i] };
    case 'random':
      return { size: n, row: (i) => rows[mix32(seed, i) % n] };
  }
}

/**
 * A vocabulary of short common words. Synthetic prompts are about length, not meaning; a
 * fixed list keeps them reproducible and their byte size predictable (~5.5 bytes a word).
 */
const WORDS = (
  'the of and to in is you that it he was for on are as with his they at be this have from or one had by word ' +
  'but not what all were we when your can said there use an each which she do how their if will up other about ' +
  'out many then them these so some her would make like him into time has look two more write go see number no ' +
  'way could people my than first water been call who oil its now find long down day did get come made may part'
).split(' ');

/** Synthetic prompts: `{ prompt, words }` with a normally distributed length, clamped to [min, max]. */
export function createSyntheticSource(words: { readonly mean: number; readonly sd: number; readonly min: number; readonly max: number }, seed: number): RowSource {
  return {
    size: undefined,
    row(i) {
      const random = createRandom(mix32(seed, i));
      // Box–Muller, one draw per prompt.
      const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      const n = Math.min(words.max, Math.max(words.min, Math.round(words.mean + words.sd * z)));
      const out: string[] = new Array<string>(n);
      for (let k = 0; k < n; k++) out[k] = WORDS[Math.floor(random() * WORDS.length)] as string;
      return Object.freeze({ prompt: out.join(' '), words: n });
    },
  };
}

/** A row source for resolved data whose rows (for a file) are already read. */
export function rowSourceOf(data: ResolvedData, rows: readonly DataRow[] | undefined, seed: number): RowSource {
  if (data.kind === 'synthetic') return createSyntheticSource(data.words, seed);
  return createRowSource(rows ?? [], data.order, seed);
}
