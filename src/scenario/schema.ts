/**
 * The zod schema of a scenario file. It checks shapes and units and converts durations; rates
 * stay as specs (absolute, or a share of the tier) because "120%" needs the tier, which is
 * resolved afterwards. Every message names what is allowed; `issues.ts` turns zod's issues
 * into `ConfigIssue`s. The `load` piece is the executors' own (`load/executor-registry.ts`).
 */
import { z } from 'zod';
import type { Journey } from './journey.js';
import { OPS, type OpName } from '../core/ops.js';
import { duration, show, strict } from '../core/unit-schemas.js';
import { loadSchema } from '../load/index.js';
import { dataSchema } from './data-schema.js';
import { TOKENIZERS } from './tokenizer.js';
import { stepsSchema } from './steps-schema.js';

// The units' pieces and the executors' `load` live below the scenario format (core/, load/);
// these names are kept here for the scenario files that read them from the schema.
export { MAX_DURATION_MS, MAX_RATE_PER_S, RATE_FORMS, show, type RateSpec } from '../core/unit-schemas.js';
export { MAX_IN_FLIGHT } from '../load/index.js';

/** Ops whose requests carry each optional mix field. */
export const MIX_FIELD_OPS = {
  flowId: ['run', 'stream', 'getFlow', 'createSession', 'trigger'],
  input: ['run', 'stream', 'trigger'],
  sessionId: ['run', 'stream', 'getHistory'],
  query: ['listFlows', 'getUsage'],
} as const satisfies Record<string, readonly (typeof OPS)[number][]>;

const NON_EMPTY = 'must not be empty';

const mixEntry = strict({
  op: z.enum(OPS, { error: (iss) => `${show(iss.input)} is not an operation; one of ${OPS.join(', ')}` }),
  weight: z.number().positive({ error: 'must be > 0' }).max(1e9, { error: 'must be at most 1e9 (weights are relative)' }).default(1),
  flowId: z.string().min(1, { error: NON_EMPTY }).optional(),
  input: z
    .union([z.string(), z.record(z.string(), z.unknown())], { error: 'must be a string (run, stream) or an object (trigger)' })
    .optional(),
  sessionId: z.string().min(1, { error: NON_EMPTY }).optional(),
  query: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]), { error: 'must be an object of strings, numbers or booleans' })
    .optional(),
  negative: z.boolean().default(false),
}).superRefine((entry, ctx) => {
  for (const [field, ops] of Object.entries(MIX_FIELD_OPS)) {
    if (entry[field as keyof typeof MIX_FIELD_OPS] !== undefined && !(ops as readonly string[]).includes(entry.op)) {
      ctx.addIssue({ code: 'custom', path: [field], message: `${entry.op} takes no ${field}; only ${ops.join(', ')} do` });
    }
  }
  if (entry.negative) return;
  if ((entry.op === 'run' || entry.op === 'stream') && entry.input !== undefined && typeof entry.input !== 'string') {
    const message = `${entry.op} input must be a string (set negative: true to send another on purpose)`;
    ctx.addIssue({ code: 'custom', path: ['input'], message });
  }
  if (entry.op === 'trigger' && typeof entry.input === 'string') {
    ctx.addIssue({ code: 'custom', path: ['input'], message: 'trigger input must be a JSON object' });
  }
});

/** A tier: "free", "pro", or { limitPerMinute: N }. */
/** A tier: "free", "pro", or { limitPerMinute: N }. */
const customTier = strict({ limitPerMinute: z.number().positive({ error: 'must be a number > 0 (requests per minute)' }) });
export const tierSchema = z.union([z.enum(['free', 'pro']), customTier], {
  error: (iss) =>
    iss.input !== null && typeof iss.input === 'object'
      ? 'must be { limitPerMinute: N } with N > 0 requests per minute'
      : `${show(iss.input)} is not a tier; use "free", "pro" or { limitPerMinute: N }`,
});

const THRESHOLD_FORMS = 'must be an expression such as "<2s", ">=99.9%" or "==0", or { expr, abortOnFail }';
const threshold = z.preprocess(
  (v) => (typeof v === 'string' ? { expr: v } : v),
  z.strictObject(
    {
      expr: z.string().trim().min(1, { error: 'must be a non-empty expression such as "<2s", ">=99.9%" or "==0"' }),
      abortOnFail: z.boolean().optional(),
      delayAbortEval: duration('non-negative').optional(),
    },
    {
      error: (iss) => {
        if (iss.code === 'unrecognized_keys') return 'allowed: expr, abortOnFail, delayAbortEval';
        return iss.code === 'invalid_type' ? THRESHOLD_FORMS : undefined;
      },
    },
  ),
);

/** `promptBands`: lower bounds of the prompt-length bands, ascending (a first bound above 0 gets a band 0 before it). */
const promptBandsSchema = z
  .array(z.number({ error: 'must be a whole number >= 0' }).int({ error: 'must be a whole number >= 0' }).min(0, { error: 'must be a whole number >= 0' }), {
    error: 'must be a list of lower bounds such as [0, 128, 512, 2048]',
  })
  .min(1, { error: 'needs at least one bound, such as [0, 128, 512, 2048]' })
  .max(32, { error: 'takes at most 32 bounds' })
  .refine((b) => b.every((x, i) => i === 0 || x > (b[i - 1] as number)), { error: 'must be in ascending order without repeats, such as [0, 128, 512, 2048]' });

const SEED_RANGE = 'must be an integer from 0 to 4294967295';
const OBJECTIVE_RANGE = 'must be between 0 and 1, exclusive (0.999 for 99.9%)';

/** The whole scenario file. */
export const scenarioSchema = strict(
  {
    name: z.string().max(63, { error: 'must be at most 63 characters' }).regex(/^[a-z0-9-]+$/, { error: 'must use only lower-case letters, digits and dashes' }),
    description: z.string().optional(),
    tier: tierSchema,
    load: loadSchema,
    mix: z.array(mixEntry).min(1, { error: 'needs at least one entry' }).max(1000, { error: 'takes at most 1000 entries' }).optional(),
    journey: z.custom<Journey>((v) => typeof v === 'function', { error: 'must be a function (vu) => …; in JSON or YAML write steps' }).optional(),
    steps: stepsSchema.optional(),
    data: dataSchema.optional(),
    tokenizer: z.enum(TOKENIZERS, { error: (iss) => `${JSON.stringify(iss.input)} is not a tokenizer; one of ${TOKENIZERS.join(', ')}` }).optional(),
    promptBands: promptBandsSchema.optional(),
    thresholds: z.record(z.string().min(1, { error: 'threshold names must not be empty' }), threshold).optional(),
    // Whole-request deadlines: `request` for every operation, an operation's own beside it; 0 for none.
    timeouts: strict(
      Object.fromEntries(['request', ...OPS].map((k) => [k, duration('non-negative').optional()])) as Record<'request' | OpName, z.ZodOptional<ReturnType<typeof duration>>>,
    ).optional(),
    seed: z
      .number()
      .int({ error: SEED_RANGE })
      .min(0, { error: SEED_RANGE })
      .max(0xffffffff, { error: SEED_RANGE })
      .optional(),
    // How much of each 2xx body is checked (api/validate.ts ValidateMode).
    validate: z.enum(['full', 'sample', 'off'], { error: 'must be full (every body checked), sample (one body in 16) or off (status and framing only)' }).optional(),
    slo: strict({
      objective: z.number().gt(0, { error: OBJECTIVE_RANGE }).lt(1, { error: OBJECTIVE_RANGE }).optional(),
    }).optional(),
  },
  'allowed fields',
).superRefine((s, ctx) => {
  const forms = (['mix', 'journey', 'steps'] as const).filter((k) => s[k] !== undefined);
  if (forms.length === 0) ctx.addIssue({ code: 'custom', path: ['mix'], message: 'a scenario needs one of mix, journey or steps' });
  if (forms.length > 1) ctx.addIssue({ code: 'custom', path: [forms[1] as string], message: `a scenario has one of mix, journey or steps, not ${forms.join(' and ')}` });
  if (s.data !== undefined && s.mix !== undefined) ctx.addIssue({ code: 'custom', path: ['data'], message: 'data feeds a journey or steps; a mix sends fixed inputs' });
  const synthetic = s.data?.synthetic;
  const made = synthetic !== undefined && 'promptTokens' in synthetic ? synthetic.tokenizer : undefined;
  if (made !== undefined && s.tokenizer !== undefined && made !== s.tokenizer) {
    ctx.addIssue({ code: 'custom', path: ['data', 'synthetic', 'tokenizer'], message: `is ${made} but the scenario's tokenizer is ${s.tokenizer}: prompts are made and measured with one tokenizer` });
  }
});

/** What a successful parse gives. */
export type ParsedScenario = z.output<typeof scenarioSchema>;
