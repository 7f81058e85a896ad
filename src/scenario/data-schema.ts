/**
 * The `data` section of a scenario: rows from a file (`.jsonl`, `.json` array, `.csv` with a
 * header row) taken in an order, or synthetic prompts of a chosen length in words.
 */
import { z } from 'zod';

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

const FORMS = 'must be { file, order } or { synthetic: { words: { mean, sd, min, max } } }';

/** `data`: `{ file, order }` or `{ synthetic: { words: { mean, sd, min, max } } }`. */
export const dataSchema = z
  .strictObject(
    {
      file: z.string().min(1, { error: 'must name a file (.jsonl, .json or .csv), relative to the scenario file' }).optional(),
      order: z.enum(DATA_ORDERS, { error: (iss) => `${JSON.stringify(iss.input)} is not an order; one of ${DATA_ORDERS.join(', ')}` }).optional(),
      synthetic: z
        .strictObject({ words }, { error: (iss) => (iss.code === 'unrecognized_keys' ? 'allowed: words' : 'must be { words: { mean, sd, min, max } }') })
        .optional(),
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
  | { readonly kind: 'synthetic'; readonly words: { readonly mean: number; readonly sd: number; readonly min: number; readonly max: number } };
