/**
 * The five checks, one operation each, and how each is judged. A check is good when the
 * interface's stated contract holds (docs/measuring.md, "SLI"): a 2xx whose body matches the
 * resource's schema, a run that did not end `failed`, a stream that reached `end`. Anything
 * else is a failure with a code; a probe runs at a few requests a minute, so a 429 counts as a
 * failure too (a probe can never be over a published limit).
 */
import type { z } from 'zod';
import {
  createSseDecoder,
  flowListSchema,
  flowSchema,
  runCompletionViolations,
  runSchema,
  serviceErrorOf,
  StreamState,
  triggerAckSchema,
} from '../api/index.js';
import { violationsOf } from '../api/validate.js';
import type { ContractViolation } from '../core/types.js';
import type { OpName } from '../core/ops.js';
import { apiErrorCodeOfStatus, isApiErrorCode } from '../core/codes.js';
import type { TimedResponse } from './http-timing.js';
import type { CheckName, ProbeErrorCode } from './record.js';
import { isRecord } from '../core/is-record.js';
import { jsonDeeperThan } from '../core/input-limits.js';

/** A request a check asks for; the runner adds auth, common headers, TLS settings and the timeout. */
export interface CheckRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly body?: string;
  /** Send the bearer header (false for the trigger, whose authentication is not stated). */
  readonly auth: boolean;
  readonly accept?: string;
  readonly onChunk?: (chunk: Buffer, atNs: number) => void;
}

/** The flow checks address: an id, or why none could be found. */
export type FlowLookup = { readonly ok: true; readonly id: string } | { readonly ok: false; readonly outcome: CheckOutcome };

/** What a check may use. */
export interface CheckContext {
  /** API address without a trailing slash (ends in `/v1`). */
  readonly baseUrl: string;
  /** Trigger host without a trailing slash. */
  readonly webhookHost: string;
  send(req: CheckRequest): Promise<TimedResponse>;
  /** A published flow to address (found once with `GET /flows?limit=1`, then cached). */
  flowId(): Promise<FlowLookup>;
  /** Forgets the cached flow, after it answered 404. */
  forgetFlow(): void;
}

/** The judgement of one check. */
export interface CheckOutcome {
  readonly success: boolean;
  readonly status: number;
  readonly error: ProbeErrorCode | null;
  /** The request the phases are taken from (absent when none was sent). */
  readonly response: TimedResponse | undefined;
  /** Monotonic ns of the first `token` event (stream check). */
  readonly firstTokenNs?: number;
  readonly detail?: string;
}

/** Input sent by the run and stream checks. */
export const PROBE_INPUT = 'flowgauge uptime probe';

function parseJson(text: string): unknown {
  // A bomb nested millions deep is refused before JSON.parse would build it.
  if (jsonDeeperThan(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function codeOf(status: number, error: Record<string, unknown> | undefined): ProbeErrorCode {
  const code = error?.code;
  if (isApiErrorCode(code)) return code;
  return apiErrorCodeOfStatus(status) ?? 'UNKNOWN';
}

/** Said of an error answer without the interface's `{ error: { … } }` body. */
export const FOREIGN_ANSWER = "not the service's error body: a gateway or proxy answered";

/**
 * The failure of a non-2xx answer. One whose body is not the interface's error object (nginx's
 * HTML 502, a bare 429 of a gateway's limit) is said to be someone else's, so an incident
 * points at the gateway, or at what is behind it, rather than at the service's own errors.
 */
function failAnswer(res: TimedResponse): CheckOutcome {
  const error = serviceErrorOf(parseJson(res.body));
  return fail(res, codeOf(res.status, error), error === undefined ? FOREIGN_ANSWER : undefined);
}

function fail(res: TimedResponse, error: ProbeErrorCode, detail?: string): CheckOutcome {
  return { success: false, status: res.status, error, response: res, ...(detail !== undefined ? { detail } : {}) };
}

function ok(res: TimedResponse): CheckOutcome {
  return { success: true, status: res.status, error: null, response: res };
}

const SAME = (s: string): string => s;

/**
 * Judges a JSON answer as the run's client does: the same validator (`violationsOf`) and the same
 * extra contract checks (a finished run's fields); `extra` may veto a valid body.
 */
function judgeJson(
  res: TimedResponse,
  op: OpName,
  schema: z.ZodType,
  extra?: (v: Record<string, unknown>) => CheckOutcome | undefined,
  contract?: (op: OpName, value: Record<string, unknown>, out: ContractViolation[]) => void,
): CheckOutcome {
  if (res.errorCode !== undefined) return fail(res, res.errorCode);
  if (res.status < 200 || res.status >= 300) return failAnswer(res);
  const parsed = parseJson(res.body);
  if (!isRecord(parsed)) return fail(res, 'MALFORMED_BODY');
  const violations = [...violationsOf(op, schema, parsed, SAME)];
  contract?.(op, parsed, violations);
  if (violations.length > 0) return fail(res, 'CONTRACT_VIOLATION');
  return extra?.(parsed) ?? ok(res);
}

async function withFlow(ctx: CheckContext, fn: (flowId: string) => Promise<CheckOutcome>): Promise<CheckOutcome> {
  const flow = await ctx.flowId();
  if (!flow.ok) return flow.outcome;
  const out = await fn(flow.id);
  if (out.status === 404) ctx.forgetFlow();
  return out;
}

const JSON_POST = (url: string, body: unknown, auth: boolean): CheckRequest => ({ url, method: 'POST', body: JSON.stringify(body), auth });

async function streamCheck(ctx: CheckContext, flowId: string): Promise<CheckOutcome> {
  // Validated as the run validates a stream: its events' shapes and order, and the content type.
  const state = new StreamState(true, SAME);
  const decoder = createSseDecoder((e) => state.add(e));
  const res = await ctx.send({
    ...JSON_POST(`${ctx.baseUrl}/flows/${encodeURIComponent(flowId)}/stream`, { input: PROBE_INPUT }, true),
    accept: 'text/event-stream',
    onChunk: (chunk, atNs) => {
      state.chunk(atNs);
      decoder.push(chunk, atNs);
    },
  });
  if (res.errorCode !== undefined) return fail(res, res.errorCode);
  if (res.status < 200 || res.status >= 300) return failAnswer(res);
  decoder.end(res.instants.endNs);
  const tokenAt = state.firstTokenNs !== undefined ? { firstTokenNs: state.firstTokenNs } : {};
  if (state.errorEvent !== undefined) return { ...fail(res, 'STREAM_ERROR_EVENT'), ...tokenAt };
  if (state.endEventNs === undefined) return { ...fail(res, 'STREAM_INCOMPLETE'), ...tokenAt };
  const type = res.headers?.['content-type'];
  if (state.violations.length > 0 || typeof type !== 'string' || !/^text\/event-stream\b/i.test(type)) return { ...fail(res, 'CONTRACT_VIOLATION'), ...tokenAt };
  return { ...ok(res), ...tokenAt };
}

/** Runs one check. Never rejects. */
export function runCheck(name: CheckName, ctx: CheckContext): Promise<CheckOutcome> {
  switch (name) {
    case 'listFlows':
      return ctx.send({ url: `${ctx.baseUrl}/flows?limit=1`, method: 'GET', auth: true }).then((r) => judgeJson(r, 'listFlows', flowListSchema));
    case 'getFlow':
      return withFlow(ctx, async (id) =>
        judgeJson(await ctx.send({ url: `${ctx.baseUrl}/flows/${encodeURIComponent(id)}`, method: 'GET', auth: true }), 'getFlow', flowSchema),
      );
    case 'run':
      return withFlow(ctx, async (id) => {
        const res = await ctx.send(JSON_POST(`${ctx.baseUrl}/flows/${encodeURIComponent(id)}/run`, { input: PROBE_INPUT }, true));
        // A `running` answer is legal (asynchronous runs): the service accepted the work.
        return judgeJson(res, 'run', runSchema, (v) => (v.status === 'failed' ? fail(res, 'RUN_FAILED') : undefined), runCompletionViolations);
      });
    case 'stream':
      return withFlow(ctx, (id) => streamCheck(ctx, id));
    case 'trigger':
      return withFlow(ctx, async (id) =>
        judgeJson(
          await ctx.send(JSON_POST(`${ctx.webhookHost}/api/v1/webhook/${encodeURIComponent(id)}`, { source: 'flowgauge-probe' }, false)),
          'trigger',
          triggerAckSchema,
        ),
      );
  }
}

/** Finds a published flow for the checks that need one. */
export async function discoverFlow(ctx: Pick<CheckContext, 'baseUrl' | 'send'>): Promise<FlowLookup> {
  const res = await ctx.send({ url: `${ctx.baseUrl}/flows?limit=1&status=published`, method: 'GET', auth: true });
  const judged = judgeJson(res, 'listFlows', flowListSchema);
  if (!judged.success) return { ok: false, outcome: { ...judged, detail: judged.detail === undefined ? 'flow discovery failed' : `flow discovery failed: ${judged.detail}` } };
  const flows = (parseJson(res.body) as { flows: { id: string }[] }).flows;
  const first = flows[0];
  if (first === undefined) return { ok: false, outcome: { ...fail(res, 'NO_FLOW', 'no published flow to probe; pass --flow') } };
  return { ok: true, id: first.id };
}
