/**
 * Rows for iterations: a function of the iteration's index, so the same seed gives every
 * iteration the same row whatever the timing, and a row costs nothing to hand out.
 */
import { createRandom } from '../core/random.js';
import { countWords } from '../core/words.js';
import type { TokenCounter } from './tokenizer.js';
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

/** Most corrections of a prompt whose words did not come out one token each (none with the vocabulary above). */
const MAX_CORRECTIONS = 64;

/**
 * Synthetic prompts of exactly `promptTokens[i mod n]` tokens of `counter` (GuideLLM's
 * `prompt_tokens`): words of the vocabulary above, each one token in cl100k_base and o200k_base
 * with or without its leading space, counted again and corrected word by word should a tokenizer
 * disagree. The row is `{ prompt, promptTokens }`, and with an output length
 * `{ outputTokens, variables: { <outputTokensVar>: outputTokens } }` for the journey to send.
 */
export function createTokenPromptSource(data: Extract<ResolvedData, { kind: 'synthetic-tokens' }>, counter: TokenCounter, seed: number): RowSource {
  const lengths = data.promptTokens;
  const output = data.output === undefined ? {} : { outputTokens: data.output.tokens, variables: Object.freeze({ [data.output.variable]: data.output.tokens }) };
  return {
    size: undefined,
    row(i) {
      const n = lengths[i % lengths.length] as number;
      const random = createRandom(mix32(seed, i));
      const pick = (): string => WORDS[Math.floor(random() * WORDS.length)] as string;
      const words: string[] = new Array<string>(n);
      for (let k = 0; k < n; k++) words[k] = pick();
      let prompt = words.join(' ');
      for (let c = 0, got = counter.count(prompt); got !== n && c < MAX_CORRECTIONS; c++, got = counter.count(prompt)) {
        if (got > n) words.pop();
        else words.push(pick());
        prompt = words.join(' ');
      }
      return Object.freeze({ prompt, promptTokens: n, ...output });
    },
  };
}

/**
 * A row source for resolved data whose rows (for a file) are already read; `counter` is the
 * tokenizer of synthetic token prompts (words when absent).
 */
export function rowSourceOf(data: ResolvedData, rows: readonly DataRow[] | undefined, seed: number, counter?: TokenCounter): RowSource {
  if (data.kind === 'synthetic') return createSyntheticSource(data.words, seed);
  if (data.kind === 'synthetic-tokens') return createTokenPromptSource(data, counter ?? { name: 'words', count: countWords }, seed);
  return createRowSource(rows ?? [], data.order, seed);
}
