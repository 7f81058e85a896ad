/**
 * The zod schema of a scenario file. It checks shapes and units and converts durations; rates
 * stay as specs (absolute, or a share of the tier) because "120%" needs the tier, which is
 * resolved afterwards. Every message names what is allowed; `issues.ts` turns zod's issues
 * into `ConfigIssue`s.
 */
import { z } from 'zod';
import type { Journey } from './journey.js';
import { OPS, type OpName } from '../core/ops.js';
import { DURATION_HELP, parseDurationMs, parsePercent, parseRatePerS, RATE_HELP } from '../core/units.js';
import { EXECUTORS } from '../load/types.js';
import { dataSchema } from './data-schema.js';
import { TOKENIZERS } from './tokenizer.js';
import { stepsSchema } from './steps-schema.js';

/** A rate before the tier is known. */
export type RateSpec =
  | { readonly perS: number; readonly fraction?: undefined }
  | { readonly fraction: number; readonly perS?: undefined };

/** Longest schedule: the monotonic clock holds integer ns exactly for 104 days. */
export const MAX_DURATION_MS = 90 * 86_400_000;

const RATE_FORMS = `${RATE_HELP}, or a share of the tier limit such as "100%" or "120%"`;

/** Formats any input for a message without throwing (bigint, symbols, cycles). */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v === null || v === undefined) {
    return String(v);
  }
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** A strict object whose unknown-field issue lists the allowed fields. */
function strict<S extends z.core.$ZodLooseShape>(shape: S, what = 'allowed') {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `${what}: ${allowed}` : undefined),
  });
}

function rate(min: 'positive' | 'non-negative') {
  return z
    .union([z.number(), z.string()], { error: (iss) => `${show(iss.input)} is not a rate; use ${RATE_FORMS}` })
    .transform((v, ctx): RateSpec => {
      const perS = parseRatePerS(v);
      const fraction = perS === undefined ? parsePercent(v) : undefined;
      const value = perS ?? fraction;
      if (value === undefined || !Number.isFinite(value)) {
        ctx.addIssue({ code: 'custom', message: `${show(v)} is not a rate; use ${RATE_FORMS}` });
        return z.NEVER;
      }
      if (min === 'positive' && value === 0) {
        ctx.addIssue({ code: 'custom', message: 'must be > 0' });
        return z.NEVER;
      }
      if (perS !== undefined && perS > MAX_RATE_PER_S) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_RATE_PER_S.toLocaleString('en-US')}/s: one process cannot schedule more (run shards)` });
        return z.NEVER;
      }
      return perS !== undefined ? { perS } : { fraction: value };
    });
}

function duration(min: 'positive' | 'non-negative') {
  return z
    .union([z.number(), z.string()], { error: (iss) => `${show(iss.input)} is not a duration; use ${DURATION_HELP}` })
    .transform((v, ctx): number => {
      const ms = parseDurationMs(v);
      if (ms === undefined || !Number.isFinite(ms)) {
        ctx.addIssue({ code: 'custom', message: `${show(v)} is not a duration; use ${DURATION_HELP}` });
        return z.NEVER;
      }
      if (min === 'positive' && ms === 0) ctx.addIssue({ code: 'custom', message: 'must be longer than 0' });
      else if (ms > MAX_DURATION_MS) ctx.addIssue({ code: 'custom', message: 'must be at most 90d' });
      return ms;
    });
}

const COUNT = 'must be an integer >= 1';
const count = (max: number) =>
  z.number().int({ error: COUNT }).min(1, { error: COUNT }).max(max, { error: `must be at most ${max.toLocaleString('en-US')}: one process cannot hold more` });

/** Most requests (or iterations) in flight, and most closed-model workers, one process can hold. */
export const MAX_IN_FLIGHT = 100_000;
export const MAX_CONCURRENCY = 50_000;
/** Highest absolute rate one process can schedule (per second). */
export const MAX_RATE_PER_S = 100_000;

const maxInFlight = count(MAX_IN_FLIGHT).optional();
const gracefulStop = duration('non-negative').optional();

const constantLoad = strict(
  {
    executor: z.literal('constant-arrival-rate'),
    rate: rate('positive'),
    duration: duration('positive'),
    maxInFlight,
    gracefulStop,
  },
  'allowed for constant-arrival-rate',
);

const totalMs = (stages: readonly { duration: number }[]): number => stages.reduce((sum, s) => sum + s.duration, 0);

const rampingLoad = strict(
  {
    executor: z.literal('ramping-arrival-rate'),
    startRate: rate('non-negative').optional(),
    stages: z
      .array(strict({ duration: duration('non-negative'), target: rate('non-negative') }))
      .min(1, { error: 'needs at least one stage' })
      .refine((stages) => totalMs(stages) > 0, { error: 'stages must last longer than 0 in total' })
      .refine((stages) => totalMs(stages) <= MAX_DURATION_MS, { error: 'stages must last at most 90d in total' }),
    maxInFlight,
    gracefulStop,
  },
  'allowed for ramping-arrival-rate',
);

const poissonLoad = strict(
  {
    executor: z.literal('poisson'),
    rate: rate('positive'),
    duration: duration('positive'),
    burstiness: z
      .number()
      .min(0.1, { error: 'must be a number >= 0.1 (1 = Poisson; below 1 burstier, above 1 steadier)' })
      .optional(),
    maxInFlight,
    gracefulStop,
  },
  'allowed for poisson',
);

const closedLoad = strict(
  {
    executor: z.literal('constant-concurrency'),
    concurrency: count(MAX_CONCURRENCY),
    duration: duration('positive'),
    gracefulStop,
  },
  'allowed for constant-concurrency',
);

const loadSchema = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && (v as { executor?: unknown }).executor === undefined
    ? { ...v, executor: 'constant-arrival-rate' }
    : v),
  z.discriminatedUnion('executor', [constantLoad, rampingLoad, poissonLoad, closedLoad], {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `${show((iss.input as { executor?: unknown } | undefined)?.executor)} is not an executor; ` +
          `one of ${EXECUTORS.join(', ')}`
        : 'must be an object such as { rate: "100/min", duration: "1m" }',
  }),
);

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
/** A parsed load, rates still specs. */
export type ParsedLoad = ParsedScenario['load'];
/** Rate forms, for messages elsewhere. */
export { RATE_FORMS };
