/**
 * Interpretation of one HTTP exchange into an `ApiResult`: the 2xx body checked against its
 * schema, the error body into an `ApiError`, a failure into a `TransportError`. Pure: the
 * I/O lives in `request.ts` and `sse-stream.ts`.
 */
import type { z } from 'zod';
import { apiErrorCodeOfStatus, isApiErrorCode, type ApiErrorCode } from '../core/codes.js';
import type { Clock } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import type { ContractViolation } from '../core/types.js';
import type { BodyMemo } from './body-memo.js';
import { causeCodeOf, classifyTransportError } from '../transport/wire-errors.js';
import { createApiError, createTransportError } from './errors.js';
import { parseRateLimitHeaders, type ResponseHeaders } from './rate-limit-headers.js';
import { redactDeep, redactRateLimit } from './redact.js';
import type { ApiResult, ResponseMeta } from './result.js';
import { jsonDeeperThan, MAX_ANSWER_DEPTH } from '../core/input-limits.js';
import { layoutCheckOf } from './layout-check.js';
import type { ExchangeTimes } from '../transport/transport.js';
import { errorBodySchema } from './schemas.js';
import { describeType, isJsonObject, NO_VIOLATIONS, violationsOf, type BodySampler, type Redact } from './validate.js';

/** What interpreting needs from the client: its clock, redactor, validation switch and body memo. */
export interface ResponseContext {
  readonly clock: Clock;
  readonly validate: boolean;
  readonly redact: Redact;
  /** Verdicts on the last 2xx body of each operation; none to judge every body afresh. */
  readonly bodies?: BodyMemo;
  /**
   * Which 2xx bodies are parsed and checked at once (`ValidateMode`): every one when absent;
   * `sample`: the ones `sampler` picks; `off`: none. The others are taken on status and framing,
   * their value parsed only when read.
   */
  readonly mode?: 'sample' | 'off';
  readonly sampler?: BodySampler;
}

/** An extra check beyond the schema (e.g. fields required once a run completed). */
export type ExtraCheck = (op: OpName, value: Record<string, unknown>, out: ContractViolation[]) => void;

const MESSAGE_MAX = 200;

/** True for a 2xx status. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The `x-request-id` header, when present. */
export function headerRequestId(headers: ResponseHeaders | undefined): string | undefined {
  const v = headers?.['x-request-id'];
  return v === undefined ? undefined : typeof v === 'string' ? v : v.join(', ');
}

/**
 * The meta of an exchange. Header values the client keeps (request id, raw rate-limit values)
 * are scrubbed with `redact` when given: a server or proxy may echo the Authorization header,
 * and the raw Reset value goes into report.json's rate-limit windows.
 */
export function responseMeta(
  redact: Redact | undefined,
  status: number,
  requestId: string | undefined,
  headers: ResponseHeaders | undefined,
  startNs: number,
  t: ExchangeTimes,
): ResponseMeta {
  let rateLimit = headers === undefined ? undefined : parseRateLimitHeaders(headers);
  if (redact !== undefined) {
    if (rateLimit !== undefined) rateLimit = redactRateLimit(rateLimit, redact);
    if (requestId !== undefined) requestId = redact(requestId);
  }
  const server = headers?.server;
  const via = headers?.via;
  return {
    status,
    requestId,
    rateLimit,
    // Compared by the rate-limit analyser only (never written out): as received, joined when repeated.
    server: server === undefined || typeof server === 'string' ? server : server.join(', '),
    via: via === undefined || typeof via === 'string' ? via : via.join(', '),
    startNs,
    headersNs: t.headersNs,
    endNs: t.endNs,
    sentNs: t.sentNs,
    connectNs: t.connectNs,
    tlsNs: t.tlsNs,
  };
}


/** Stands for text that is not JSON (a sentinel rather than a wrapper object per body). */
const NOT_JSON: unique symbol = Symbol('not JSON');
/** Stands for JSON nested deeper than `MAX_ANSWER_DEPTH`, refused before it is parsed. */
const TOO_DEEP: unique symbol = Symbol('too deep');

function parseJson(text: string): unknown {
  if (jsonDeeperThan(text)) return TOO_DEEP;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function bodyShape(text: string, parsed: unknown): string {
  if (text === '') return 'empty';
  if (parsed === TOO_DEEP) return `JSON nested deeper than ${MAX_ANSWER_DEPTH} levels`;
  return parsed === NOT_JSON ? 'non-JSON text' : describeType(parsed);
}

/**
 * An answer that arrived whole: its head and its buffered body, with the exchange's times. The
 * transport's own outcome is one once its head and body are known (no copy is made of it).
 */
export interface WholeAnswer extends ExchangeTimes {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly text: string;
}

/** Result of a 2xx answer whose body is `a.text`. */
export function successResult<T>(ctx: ResponseContext, op: OpName, schema: z.ZodType, extra: ExtraCheck | undefined, a: WholeAnswer, startNs: number): ApiResult<T> {
  const { status, headers, text } = a;
  const m = responseMeta(ctx.redact, status, headerRequestId(headers), headers, startNs, a);
  if (ctx.mode === 'off') return lazyBodyResult<T>(text, m, NO_VIOLATIONS);
  const seen = ctx.bodies?.lookup(op, text);
  if (seen !== undefined) return lazyBodyResult<T>(text, m, seen.violations);
  if (ctx.mode === 'sample' && ctx.sampler?.next() === false) return lazyBodyResult<T>(text, m, NO_VIOLATIONS);
  // A body in a layout the schema was seen to accept is judged by one expression over its text,
  // unparsed (`layout-check.ts`); an extra check reads the value, so those bodies are parsed.
  const layout = ctx.validate && extra === undefined ? layoutCheckOf(schema) : undefined;
  if (layout?.accepts(text) === true) {
    ctx.bodies?.keep(op, text, NO_VIOLATIONS);
    return lazyBodyResult<T>(text, m, NO_VIOLATIONS);
  }
  const parsed = parseJson(text);
  if (!isJsonObject(parsed)) {
    const got = bodyShape(text, parsed);
    const violations = [{ op, path: '(root)', expected: parsed === NOT_JSON || parsed === TOO_DEEP ? 'JSON' : 'object', got }];
    const error = createTransportError('MALFORMED_BODY', `${op}: HTTP ${status} body is ${got}, not a JSON object`);
    return { ok: false, error, meta: m, violations };
  }
  const value = parsed;
  let violations = NO_VIOLATIONS;
  if (ctx.validate) {
    violations = violationsOf(op, schema, value, ctx.redact);
    if (extra !== undefined) {
      const out = violations === NO_VIOLATIONS ? [] : (violations as ContractViolation[]);
      extra(op, value, out);
      if (out.length > 0) violations = out;
    }
    if (violations === NO_VIOLATIONS) layout?.learn(value);
  }
  ctx.bodies?.keep(op, text, violations);
  return { ok: true, value: value as T, meta: m, violations };
}

const UNPARSED: unique symbol = Symbol('unparsed');

/**
 * The result of a body identical to one already judged (its verdict), or of one not checked
 * (`validate: sample | off`): its value parsed only when read (a getter on the prototype, which
 * costs nothing per result until then; `toJSON` keeps `value` in serialised results). A body
 * judged before parsed to a JSON object; an unchecked one that is not JSON reads as undefined.
 */
class LazyBodyResult {
  readonly ok = true as const;
  private parsed: unknown = UNPARSED;

  constructor(
    private readonly text: string,
    readonly meta: ResponseMeta,
    readonly violations: readonly ContractViolation[],
  ) {}

  get value(): unknown {
    if (this.parsed === UNPARSED) {
      const v = parseJson(this.text);
      this.parsed = v === NOT_JSON || v === TOO_DEEP ? undefined : v;
    }
    return this.parsed;
  }

  toJSON(): { ok: true; value: unknown; meta: ResponseMeta; violations: readonly ContractViolation[] } {
    return { ok: true, value: this.value, meta: this.meta, violations: this.violations };
  }
}

function lazyBodyResult<T>(text: string, meta: ResponseMeta, violations: readonly ContractViolation[]): ApiResult<T> {
  return new LazyBodyResult(text, meta, violations) as ApiResult<T>;
}

/**
 * The interface's `error` object of a parsed answer; undefined when the body is not the
 * service's own error body (a gateway's HTML page, an empty body, JSON without `error`). The
 * one rule `run` (an `ApiError`'s `foreignBody`) and `probe` (its "a gateway or proxy
 * answered") both use.
 */
export function serviceErrorOf(parsed: unknown): Record<string, unknown> | undefined {
  return isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : undefined;
}

/** Result of a non-2xx answer whose body is `a.text`. */
export function errorResult<T>(ctx: ResponseContext, op: OpName, a: WholeAnswer, startNs: number): ApiResult<T> {
  const { status, headers, text } = a;
  const parsed = parseJson(text);
  const body = isJsonObject(parsed) ? parsed : undefined;
  const err = serviceErrorOf(body);
  const statusCode = apiErrorCodeOfStatus(status) ?? 'UNKNOWN';
  let violations: ContractViolation[] | readonly ContractViolation[] = NO_VIOLATIONS;
  let code: ApiErrorCode | 'UNKNOWN' = statusCode;
  let message = `HTTP ${status}`;
  let details: Record<string, unknown> | undefined;
  let requestId = headerRequestId(headers);
  let foreignBody: string | undefined;
  if (err === undefined || typeof err.code !== 'string') {
    const got = body === undefined ? bodyShape(text, parsed) : err === undefined ? `error: ${describeType(body.error)}` : `error.code: ${describeType(err.code)}`;
    violations = [{ op, path: 'error', expected: 'error body', got }];
    if (err === undefined) foreignBody = got;
  } else {
    code = isApiErrorCode(err.code) ? err.code : 'UNKNOWN';
    if (typeof err.message === 'string') message = ctx.redact(err.message).slice(0, MESSAGE_MAX);
    if (isJsonObject(err.details)) details = redactDeep(err.details, ctx.redact);
    if (typeof body?.request_id === 'string') requestId = body.request_id;
    if (ctx.validate) {
      violations = violationsOf(op, errorBodySchema, body, ctx.redact);
      // The interface pairs each error code with one status; a 429 saying INTERNAL_ERROR breaks it.
      if (code !== 'UNKNOWN' && statusCode !== 'UNKNOWN' && statusCode !== code) {
        const out = violations === NO_VIOLATIONS ? [] : (violations as ContractViolation[]);
        out.push({ op, path: 'error.code', expected: `${statusCode} for HTTP ${status}`, got: ctx.redact(JSON.stringify(err.code)) });
        violations = out;
      }
    }
  }
  if (requestId !== undefined) requestId = ctx.redact(requestId);
  const error = createApiError(code, status, `${code} (HTTP ${status}): ${message}`, details, requestId, foreignBody);
  return { ok: false, error, meta: responseMeta(ctx.redact, status, requestId, headers, startNs, a), violations };
}

/**
 * Result of a failure below HTTP, or while reading a body. Pass the client's `redact` when
 * response headers may have arrived (a body that failed after its head).
 */
export function transportResult<T>(
  op: string,
  err: unknown,
  signal: AbortSignal | undefined,
  status: number,
  headers: ResponseHeaders | undefined,
  startNs: number,
  t: ExchangeTimes,
  redact?: Redact,
): ApiResult<T> {
  const code = classifyTransportError(err, signal);
  const cause = causeCodeOf(err);
  // A protocol error says what the target sent instead: that is the whole diagnosis.
  const said = code === 'PROTOCOL_ERROR' && err instanceof Error ? `: ${redact === undefined ? err.message : redact(err.message)}` : '';
  const error = createTransportError(code, `${op}: ${code}${cause === undefined ? '' : ` (${cause})`}${said}`, cause);
  const m = responseMeta(redact, status, headerRequestId(headers), headers, startNs, t);
  return { ok: false, error, meta: m, violations: NO_VIOLATIONS };
}
