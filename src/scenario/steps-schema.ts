/**
 * The `steps` form of a journey, for scenarios written as JSON or YAML: a list of steps, each
 * one request (`op` with its fields, `save`, `check`), a pause (`sleep`), or a loop (`repeat`
 * with nested `steps`). Strings may hold `{{name}}` templates (saved values, `data.<column>`,
 * `iteration`, `flowId`). Shapes only here; `steps.ts` checks names and compiles.
 */
import { z } from 'zod';
import { OPS, type OpName } from '../core/ops.js';
import { DURATION_HELP, parseDurationMs } from '../core/units.js';

/** Fields a step of each operation takes besides the common ones (`op`, `name`, `save`, `check`). */
export const STEP_FIELDS: Readonly<Record<OpName, readonly string[]>> = {
  run: ['flowId', 'input', 'sessionId'],
  stream: ['flowId', 'input', 'sessionId'],
  getRun: ['runId'],
  listFlows: ['query'],
  getFlow: ['flowId'],
  createSession: ['flowId', 'body'],
  getHistory: ['sessionId'],
  getUsage: ['query'],
  trigger: ['flowId', 'body'],
};
/** Fields a step of each operation cannot do without. */
export const STEP_REQUIRED: Readonly<Partial<Record<OpName, readonly string[]>>> = {
  run: ['input'],
  stream: ['input'],
  getRun: ['runId'],
  getHistory: ['sessionId'],
};

/** Deepest nesting of `repeat`, and most repetitions of one: an iteration must end. */
export const MAX_REPEAT_DEPTH = 8;
export const MAX_REPEAT = 10_000;
/** Most steps in one list. */
export const MAX_STEPS = 1_000;

const CHECK_FORMS = 'must be { path, equals } , { path, matches }, or { path, min, max } (path optional)';

/** One check of a step's answer. */
const checkSpec = z
  .strictObject(
    {
      path: z.string().optional(),
      equals: z.union([z.string(), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' }).optional(),
      matches: z
        .string()
        .refine((s) => isRegExp(s), { error: 'must be a valid regular expression' })
        .optional(),
      min: z.number().optional(),
      max: z.number().optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'allowed: path, equals, matches, min, max' : CHECK_FORMS) },
  )
  .refine((c) => c.equals !== undefined || c.matches !== undefined || c.min !== undefined || c.max !== undefined, { error: CHECK_FORMS });

function isRegExp(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

const SAVE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['data', 'iteration', 'flowId', 'scenario']);

const KIND = '~kind';

const opStep = z
  .strictObject(
    {
      [KIND]: z.literal('op'),
      op: z.enum(OPS, { error: (iss) => `unknown operation ${JSON.stringify(iss.input)}; allowed: ${OPS.join(', ')}` }),
      name: z.string().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
      flowId: z.string().min(1).optional(),
      input: z.string().optional(),
      sessionId: z.string().min(1).optional(),
      runId: z.string().min(1).optional(),
      query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]), { error: 'must be an object of strings, numbers or booleans' }).optional(),
      body: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
      save: z
        .record(z.string(), z.string({ error: 'must be a path into the answer, such as "id" or "messages.length"' }))
        .optional(),
      check: z.record(z.string().min(1), checkSpec).optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'allowed: op, name, flowId, input, sessionId, runId, query, body, save, check' : undefined) },
  )
  .superRefine((s, ctx) => {
    const own = STEP_FIELDS[s.op];
    for (const field of ['flowId', 'input', 'sessionId', 'runId', 'query', 'body'] as const) {
      if (s[field] !== undefined && !own.includes(field)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${s.op} takes no ${field}; it takes ${own.join(', ')}` });
      }
    }
    for (const name of Object.keys(s.save ?? {})) {
      if (RESERVED.has(name)) ctx.addIssue({ code: 'custom', path: ['save', name], message: 'data, iteration, flowId and scenario are reserved names' });
      else if (!SAVE_NAME.test(name)) ctx.addIssue({ code: 'custom', path: ['save', name], message: 'a saved name is letters, digits and _, not starting with a digit' });
    }
    for (const field of STEP_REQUIRED[s.op] ?? []) {
      if (s[field as keyof typeof s] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `is required for ${s.op}` });
    }
  });

const sleepStep = z.strictObject(
  {
    [KIND]: z.literal('sleep'),
    sleep: z.union([z.number(), z.string()]).refine((v) => {
      const ms = parseDurationMs(v);
      return ms !== undefined && Number.isFinite(ms) && ms >= 0 && ms <= 3_600_000;
    }, { error: `must be a duration up to 1h; use ${DURATION_HELP}` }),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? 'a sleep step has only sleep' : undefined) },
);

/** A request step as parsed. */
export type ParsedOpStep = Omit<z.output<typeof opStep>, typeof KIND>;
/** A step as parsed. */
export type ParsedStep =
  | ParsedOpStep
  | { readonly sleep: number | string }
  | { readonly repeat: number; readonly steps: readonly ParsedStep[] };

const STEP_FORMS = "{ op, … }, { sleep: \"2s\" } or { repeat: N, steps: [ … ] }";

function stepList(depth: number): z.ZodType<readonly ParsedStep[]> {
  return z.array(step(depth)).min(1, { error: 'needs at least one step' }).max(MAX_STEPS, { error: `takes at most ${MAX_STEPS} steps` });
}

function step(depth: number): z.ZodType<ParsedStep> {
  const repeatStep = z.strictObject(
    {
      [KIND]: z.literal('repeat'),
      repeat: z.number().int({ error: REPEAT_RANGE }).min(1, { error: REPEAT_RANGE }).max(MAX_REPEAT, { error: REPEAT_RANGE }),
      steps: depth >= MAX_REPEAT_DEPTH ? z.never({ error: `repeat nests at most ${MAX_REPEAT_DEPTH} deep` }) : z.lazy(() => stepList(depth + 1)),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'a repeat step has only repeat and steps' : undefined) },
  );
  // Route by the key that names the kind, so an error names the fields of the kind meant.
  return z.preprocess(
    (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...v, [KIND]: kindOf(v as Record<string, unknown>) } : v),
    z.discriminatedUnion(KIND, [opStep, sleepStep, repeatStep], {
      error: (iss) => (iss.code === 'invalid_union' || iss.code === 'invalid_type' ? `must be ${STEP_FORMS}` : undefined),
    }),
  ) as unknown as z.ZodType<ParsedStep>;
}

const REPEAT_RANGE = `must be an integer from 1 to ${MAX_REPEAT}`;

function kindOf(v: Record<string, unknown>): string | undefined {
  if ('op' in v) return 'op';
  if ('repeat' in v) return 'repeat';
  if ('sleep' in v) return 'sleep';
  return undefined;
}

/** `steps`: a journey of steps. */
export const stepsSchema = stepList(0);
export { STEP_FORMS };
