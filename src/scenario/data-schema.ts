/**
 * The `data` section of a scenario: rows from a file (`.jsonl`, `.json` array, `.csv` with a
 * header row) taken in an order, or synthetic prompts of a chosen length in words or in tokens
 * (GuideLLM's `prompt_tokens=256` form included).
 */
import { z } from 'zod';
import { TOKENIZERS, type TokenizerName } from './tokenizer.js';

/** How rows are handed to iterations. */
export const DATA_ORDERS = ['sequential', 'random', 'unique'] as const;
/** How rows are handed to iterations: in file order (wrapping), seeded random, or each once. */
export type DataOrder = (typeof DATA_ORDERS)[number];
/** File kinds a data file may be, by extension. */
export const DATA_EXTENSIONS = ['.jsonl', '.ndjson', '.json', '.csv'] as const;

/** Largest synthetic prompt (words): keeps one request body well under the client's caps. */
export const MAX_SYNTHETIC_WORDS = 100_000;

const words = z
  .strictObject(
    {
      mean: z.number().positive({ error: 'must be > 0 (words)' }).max(MAX_SYNTHETIC_WORDS, { error: `must be at most ${MAX_SYNTHETIC_WORDS}` }),
      sd: z.number().min(0, { error: 'must be >= 0 (words)' }).optional(),
      min: z.number().int({ error: 'must be an integer >= 1' }).min(1, { error: 'must be an integer >= 1' }).optional(),
      max: z.number().int({ error: 'must be an integer >= 1' }).min(1, { error: 'must be an integer >= 1' }).max(MAX_SYNTHETIC_WORDS, { error: `must be at most ${MAX_SYNTHETIC_WORDS}` }).optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'allowed: mean, sd, min, max' : undefined) },
  )
  .refine((w) => w.min === undefined || w.max === undefined || w.min <= w.max, { error: 'min must not exceed max', path: ['min'] });

/** Largest synthetic prompt in tokens, as for words. */
export const MAX_SYNTHETIC_TOKENS = MAX_SYNTHETIC_WORDS;

const tokenCount = (what: string) =>
  z
    .number({ error: `must be a whole number of ${what}` })
    .int({ error: `must be a whole number of ${what}` })
    .min(1, { error: `must be at least 1 (${what})` })
    .max(MAX_SYNTHETIC_TOKENS, { error: `must be at most ${MAX_SYNTHETIC_TOKENS}` });

/** GuideLLM's keys in its string form, and the field each becomes. */
const GUIDELLM_KEYS: Readonly<Record<string, string>> = { prompt_tokens: 'promptTokens', output_tokens: 'outputTokens' };

/**
 * GuideLLM's synthetic data string (`prompt_tokens=256,output_tokens=128`) as the object form;
 * a key it does not map is kept as written, so the object's check names it and what is allowed.
 */
function fromGuidellmString(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const out: Record<string, unknown> = {};
  for (const pair of v.split(',')) {
    const [k = '', value = ''] = pair.split('=').map((x) => x.trim());
    if (k === '') continue;
    const n = Number(value);
    out[GUIDELLM_KEYS[k] ?? k] = value !== '' && Number.isFinite(n) ? n : value;
  }
  return out;
}

const TOKENS_KEYS = 'promptTokens, outputTokens, outputTokensVar, tokenizer (or GuideLLM\'s "prompt_tokens=256,output_tokens=128")';

/**
 * `{ promptTokens, outputTokens?, outputTokensVar?, tokenizer? }`: prompts of exactly that many
 * tokens (a list: a sweep, iteration i taking entry i mod n). The interface has no output-length
 * parameter, so `outputTokens` needs the name of the flow variable that carries it.
 */
const tokens = z
  .strictObject(
    {
      promptTokens: z.union([tokenCount('tokens'), z.array(tokenCount('tokens')).min(1, { error: 'needs at least one length' }).max(100, { error: 'takes at most 100 lengths' })], {
        error: 'must be a whole number of tokens >= 1, or a list of them (a sweep)',
      }),
      outputTokens: tokenCount('tokens').optional(),
      outputTokensVar: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, { error: 'must be a flow variable name such as max_tokens' }).optional(),
      tokenizer: z.enum(TOKENIZERS, { error: (iss) => `${JSON.stringify(iss.input)} is not a tokenizer; one of ${TOKENIZERS.join(', ')}` }).optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? `allowed: ${TOKENS_KEYS}` : undefined) },
  )
  .superRefine((t, ctx) => {
    if (t.outputTokens !== undefined && t.outputTokensVar === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['outputTokens'],
        message: 'the interface has no output-length parameter: name the flow variable that carries it (outputTokensVar: max_tokens), or leave output length out',
      });
    }
    if (t.outputTokensVar !== undefined && t.outputTokens === undefined) ctx.addIssue({ code: 'custom', path: ['outputTokensVar'], message: 'names the variable of outputTokens, which is missing' });
  });

const FORMS = 'must be { file, order }, { synthetic: { words: { mean, sd, min, max } } } or { synthetic: { promptTokens, tokenizer } }';

const synthetic = z.preprocess(
  fromGuidellmString,
  z.union([z.strictObject({ words }), tokens], {
    error: (iss) => {
      const v = iss.input;
      if (v !== null && typeof v === 'object' && 'words' in v) return undefined;
      return `must be { words: { mean, sd, min, max } } or { ${TOKENS_KEYS.replace(' (or', ' } (or')}`;
    },
  }),
);

/** `data`: `{ file, order }`, `{ synthetic: { words: { … } } }` or `{ synthetic: { promptTokens, … } }`. */
export const dataSchema = z
  .strictObject(
    {
      file: z.string().min(1, { error: 'must name a file (.jsonl, .json or .csv), relative to the scenario file' }).optional(),
      order: z.enum(DATA_ORDERS, { error: (iss) => `${JSON.stringify(iss.input)} is not an order; one of ${DATA_ORDERS.join(', ')}` }).optional(),
      synthetic: synthetic.optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'allowed: file, order, synthetic' : FORMS) },
  )
  .superRefine((d, ctx) => {
    if (d.file !== undefined && d.synthetic !== undefined) ctx.addIssue({ code: 'custom', path: ['synthetic'], message: 'takes a file or synthetic prompts, not both' });
    else if (d.file === undefined && d.synthetic === undefined) ctx.addIssue({ code: 'custom', message: FORMS });
    else if (d.synthetic !== undefined && d.order !== undefined) ctx.addIssue({ code: 'custom', path: ['order'], message: 'applies to a file; synthetic prompts are made per iteration' });
  });

/** `data` as parsed. */
export type ParsedData = z.output<typeof dataSchema>;

/** Data of a resolved scenario: a file (absolute path) or a synthetic prompt generator. */
export type ResolvedData =
  | { readonly kind: 'file'; readonly path: string; readonly order: DataOrder }
  | { readonly kind: 'synthetic'; readonly words: { readonly mean: number; readonly sd: number; readonly min: number; readonly max: number } }
  | {
      readonly kind: 'synthetic-tokens';
      /** Prompt lengths in tokens: iteration i takes entry i mod n. */
      readonly promptTokens: readonly number[];
      readonly tokenizer: TokenizerName;
      /** The output length asked for, and the flow variable that carries it. */
      readonly output?: { readonly tokens: number; readonly variable: string };
    };
