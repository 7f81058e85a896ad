/**
 * Response schemas of the interface's resources (docs/reference-service.md), in zod 4. Objects are loose:
 * extra fields are allowed. A custom message of the form `expected:<text>` names what the
 * spec states where zod's own wording would mislead (see `validate.ts`).
 */
import { z } from 'zod';
import type { OpName } from '../core/ops.js';
import type { ContractViolation } from '../core/types.js';

/** ISO 8601 timestamp; an offset is tolerated although the spec says UTC. */
export const timestampSchema = z.iso.datetime({ offset: true, error: 'expected:ISO 8601 timestamp' });

// zod reports a non-number under an integer schema as `expected number`; say integer.
const int = z.number({ error: 'expected:integer' }).int({ error: 'expected:integer' });

/** Run usage (a run's `usage`). */
export const usageSchema = z.looseObject({ total_tokens: int, prompt_tokens: int, completion_tokens: int });

const runStateSchema = z.enum(['running', 'completed', 'failed']);
const flowStatusSchema = z.enum(['published', 'draft']);

const flowBaseShape = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  status: flowStatusSchema,
  created_at: timestampSchema,
  updated_at: timestampSchema,
};

const ioSchema = z.looseObject({
  type: z.string(),
  properties: z.record(z.string(), z.looseObject({ type: z.unknown() })).optional(),
});

/** A flow as listed: carries `endpoint`. */
export const flowListItemSchema = z.looseObject({
  ...flowBaseShape,
  endpoint: z.url({ error: 'expected:URL' }),
});

/** A flow as read alone: carries `config.input_schema` and `config.output_schema`. */
export const flowSchema = z.looseObject({
  ...flowBaseShape,
  config: z.looseObject({ input_schema: ioSchema, output_schema: ioSchema }),
});

/** A page of flows. */
export const flowListSchema = z.looseObject({
  flows: z.array(flowListItemSchema),
  total: int,
  limit: int,
  offset: int,
});

/**
 * Response of the run operation. `completed_at` and `usage` may be absent while the run is
 * `running`; `runCompletionViolations` asks for them once it is not.
 */
export const runSchema = z.looseObject({
  id: z.string(),
  flow_id: z.string(),
  status: runStateSchema,
  output: z.string(),
  created_at: timestampSchema,
  completed_at: timestampSchema.nullable().optional(),
  usage: usageSchema.optional(),
});

/** Response of the run-status read. `error` must be present (null when none). */
export const runStatusBodySchema = z.looseObject({
  id: z.string(),
  flow_id: z.string(),
  status: runStateSchema,
  progress: int,
  output: z.string(),
  error: z.unknown(),
  created_at: timestampSchema,
});

/** A session. `flow_id`/`user_id` may be null when the client did not supply them. */
export const sessionSchema = z.looseObject({
  id: z.string(),
  flow_id: z.string({ error: 'expected:string or null' }).nullable(),
  user_id: z.string({ error: 'expected:string or null' }).nullable(),
  status: z.string(),
  created_at: timestampSchema,
  metadata: z.looseObject({}),
});

/** A message of a session's history. */
export const messageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  timestamp: timestampSchema,
});

/** A session's history. */
export const historySchema = z.looseObject({
  session_id: z.string(),
  messages: z.array(messageSchema),
  total: int,
});

/** Usage statistics. */
export const usageStatsSchema = z.looseObject({
  period: z.looseObject({ start: timestampSchema, end: timestampSchema }),
  metrics: z.looseObject({
    total_runs: int,
    successful_runs: int,
    failed_runs: int,
    total_tokens: int,
    avg_response_time: z.number(),
    cost: z.number(),
  }),
  daily_breakdown: z.array(z.looseObject({ date: z.string(), runs: int, tokens: int, cost: z.number() })),
});

/** Acknowledgement of the inbound trigger. */
export const triggerAckSchema = z.looseObject({ message: z.string(), status: z.string() });

/** The error body (docs/reference-service.md, "Errors"). */
export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: z.looseObject({}).optional(),
  }),
  request_id: z.string(),
});

/** The `start` stream event. */
export const startEventSchema = z.looseObject({ run_id: z.string() });

/** The `end` stream event. */
export const endEventSchema = z.looseObject({ run_id: z.string(), usage: usageSchema });

/**
 * Fields the run response must carry once the run is no longer `running`: `completed_at`
 * and `usage` (the answer to a run). Wrong types are already reported by `runSchema`.
 */
export function runCompletionViolations(op: OpName, value: Record<string, unknown>, out: ContractViolation[]): void {
  if (value.status !== 'completed') return;
  if (value.completed_at === undefined || value.completed_at === null) {
    out.push({ op, path: 'completed_at', expected: 'ISO 8601 timestamp', got: value.completed_at === null ? 'null' : 'missing' });
  }
  if (value.usage === undefined) out.push({ op, path: 'usage', expected: 'object', got: 'missing' });
}
