/**
 * The request context and the response writers. Every response goes through `sendBody` or
 * `writeStreamHead`, which add `x-request-id` and the rate-limit headers and count the request.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { NS_PER_S } from '../core/clock.js';
import { API_ERROR_STATUS, type ApiErrorCode } from '../core/codes.js';
import { valueProblem } from '../core/input-limits.js';
import { describeLimit } from './limiters.js';
import type { Area, Routable, RouteName } from './router.js';
import type { ServiceState, TokenState } from './state.js';
import { countRequest } from './stats.js';

/** One request in flight. A class, so every context has the same shape for the JIT. */
export class RequestContext implements Routable {
  area: Area = 'other';
  route: RouteName = 'unknown';
  param = '';
  tok: TokenState | undefined = undefined;
  dropRateLimit = false;
  /** A 429 of the `throttleAfter` fault: its Remaining says 0 although the advertised limit has room. */
  throttled = false;
  answered = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly atNs: number,
    readonly requestId: string,
    readonly path: string,
    readonly query: string,
  ) {}
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Largest request body read (1 MiB); bigger ones get 413 and the connection closed. */
export const MAX_BODY_BYTES = 1 << 20;

/**
 * Adds `X-RateLimit-*` for the request's token (or the uncounted anonymous window). Returns the
 * delta Reset in seconds, which is also the `Retry-After` of a fixed-window 429. A refusal
 * describes the limiter at the instant it refused (`ctx.atNs`): read later, a token bucket or a
 * sliding log could already have room again, and an honest 429 would say `Remaining: 1`.
 */
function addRateLimit(state: ServiceState, ctx: RequestContext, h: OutgoingHttpHeaders, refused = false): number {
  const now = refused ? ctx.atNs : state.clock.nowNs();
  const tok = ctx.tok;
  let limit: number;
  let remaining: number;
  let leftNs: number;
  let retryAfterS: number;
  if (state.opts.limiter.shape === 'fixed') {
    if (tok !== undefined && tok.windowEndNs > now) {
      limit = tok.limit;
      remaining = limit > tok.count ? limit - tok.count : 0;
      leftNs = tok.windowEndNs - now;
    } else {
      limit = tok === undefined ? state.anonLimit : tok.limit;
      remaining = limit;
      leftNs = state.windowNs;
    }
    retryAfterS = Math.ceil(leftNs / NS_PER_S);
  } else {
    const v = describeLimit(state, tok, now);
    limit = v.limit;
    remaining = v.remaining;
    leftNs = v.resetNs;
    retryAfterS = v.resetS;
  }
  if (ctx.throttled) remaining = 0;
  if (!state.opts.rateLimit.headers) return retryAfterS;
  if (ctx.dropRateLimit) {
    state.stats.faults.missingRateLimitHeaders++;
    return retryAfterS;
  }
  if (tok !== undefined && state.faults.active) {
    const drift = state.faults.remainingDrift();
    if (drift !== 0) {
      // The lie stays within what a header could truthfully say, so only its value gives it away.
      const shown = Math.min(limit, Math.max(0, remaining + drift));
      if (shown !== remaining) state.stats.faults.driftedRemaining++;
      remaining = shown;
    }
  }
  h['x-ratelimit-limit'] = limit;
  h['x-ratelimit-remaining'] = remaining;
  h['x-ratelimit-reset'] =
    state.opts.rateLimit.reset === 'delta-seconds' ? retryAfterS : Math.ceil((state.clock.wallMs() + leftNs / 1e6) / 1000);
  return retryAfterS;
}

/** Counts the request and tells `onRequest`. */
export function finish(state: ServiceState, ctx: RequestContext, status: number): void {
  countRequest(state.stats, ctx.route, status);
  const cb = state.opts.onRequest;
  if (cb === undefined) return;
  const tp = ctx.req.headers.traceparent;
  try {
    cb({ method: ctx.req.method ?? '', path: ctx.path, atNs: ctx.atNs, traceparent: Array.isArray(tp) ? tp[0] : tp, status });
  } catch {
    state.stats.callbackErrors++;
  }
}

/** Options of `sendBody`. */
export interface SendOptions {
  /** Seconds for a `Retry-After` header; `'window'`: until the rate-limit window resets. */
  readonly retryAfter?: number | 'window';
  readonly headers?: Readonly<Record<string, string>>;
}

/** Sends a JSON body (maybe garbled by the malformed-body fault) with the common headers. */
export function sendBody(state: ServiceState, ctx: RequestContext, status: number, body: string | Buffer, o?: SendOptions): void {
  if (ctx.answered) return;
  ctx.answered = true;
  let payload = body;
  if (status < 300 && ctx.area !== 'admin' && state.faults.active && state.faults.malformed()) {
    state.stats.faults.malformedBodies++;
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    payload = buf.subarray(0, Math.floor(buf.length / 2));
  }
  const h: OutgoingHttpHeaders = {
    'content-type': JSON_TYPE,
    'content-length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
    'x-request-id': ctx.requestId,
  };
  const windowS = addRateLimit(state, ctx, h, status === 429);
  if (o !== undefined) {
    if (o.retryAfter !== undefined) h['retry-after'] = String(o.retryAfter === 'window' ? windowS : o.retryAfter);
    if (o.headers !== undefined) Object.assign(h, o.headers);
  }
  const res = ctx.res;
  if (!res.destroyed) {
    res.writeHead(status, h);
    res.end(payload);
  }
  finish(state, ctx, status);
}

/** Sends the error body of the interface for `code`. */
export function sendError(
  state: ServiceState,
  ctx: RequestContext,
  code: ApiErrorCode,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
  o?: SendOptions,
): void {
  const body: Record<string, unknown> = { error: { code, message, details }, request_id: ctx.requestId };
  if (state.opts.quirks.errorExtraFields) {
    (body.error as Record<string, unknown>).docs_url = `https://docs.invalid/errors/${code.toLowerCase()}`;
    body.timestamp = new Date(state.clock.wallMs()).toISOString();
  }
  sendBody(state, ctx, API_ERROR_STATUS[code], JSON.stringify(body), o);
}

/** 400 INVALID_REQUEST naming the offending field. */
export function sendInvalid(state: ServiceState, ctx: RequestContext, field: string, reason: string): void {
  sendError(state, ctx, 'INVALID_REQUEST', `invalid request: ${field} ${reason}`, { field, reason });
}

/** Writes the head of an SSE response. Returns false when the client has gone. */
export function writeStreamHead(state: ServiceState, ctx: RequestContext): boolean {
  ctx.answered = true;
  const h: OutgoingHttpHeaders = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': ctx.requestId,
  };
  addRateLimit(state, ctx, h);
  finish(state, ctx, 200);
  if (ctx.res.destroyed) return false;
  ctx.res.writeHead(200, h);
  return true;
}

/**
 * Outcome of reading a JSON body. `tooLarge`: the body is over `MAX_BODY_BYTES` (declared or
 * sent); the rest of it was not read, and `sendBodyProblem` answers 413 and closes the connection.
 */
export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string; readonly field?: string; readonly tooLarge?: true };

/**
 * Deepest nesting of arrays and objects a request body may have. The interface states none; a
 * body nested deeper than any real one would exhaust the stack of whatever handles it (100,000
 * levels of `metadata` did: a 500), so it is an invalid request.
 */
export const MAX_BODY_DEPTH = 64;

const BODY_LIMITS = { maxDepth: MAX_BODY_DEPTH, maxStringChars: MAX_BODY_BYTES, maxKeyChars: MAX_BODY_BYTES };

/**
 * Reads and parses the request body (at most `MAX_BODY_BYTES`): a larger declared
 * Content-Length is refused before a byte is read, a chunked body as soon as it passes the
 * limit; a body nested deeper than `MAX_BODY_DEPTH` or with a key that would reach a prototype
 * is invalid, named by its top-level field.
 */
export function readJsonBody(req: IncomingMessage): Promise<BodyResult> {
  const tooLarge: BodyResult = { ok: false, reason: `must be at most ${MAX_BODY_BYTES} bytes`, tooLarge: true };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.resolve(tooLarge);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (c: Buffer): void => {
      if (done) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        // Stop reading: the rest of the body stays unread until the connection is closed.
        req.off('data', onData);
        req.pause();
        resolve(tooLarge);
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        resolve({ ok: false, reason: text.trim() === '' ? 'is required (a JSON object)' : 'is not valid JSON' });
        return;
      }
      const problem = valueProblem(value, BODY_LIMITS);
      if (problem === undefined) resolve({ ok: true, value });
      else resolve({ ok: false, reason: problem.message, field: problem.path.length === 0 ? 'body' : String(problem.path[0]) });
    });
    const fail = (): void => {
      if (!done) resolve({ ok: false, reason: 'could not be read' });
      done = true;
    };
    req.on('error', fail);
    req.on('close', fail);
  });
}

/**
 * Answers a body `readJsonBody` refused: 400 INVALID_REQUEST naming the field, or for one too
 * large 413 (with the interface's error body, code INVALID_REQUEST) and `Connection: close`,
 * then the connection is closed without reading the rest (a client sending 10 GB is not read to
 * its end).
 */
export function sendBodyProblem(state: ServiceState, ctx: RequestContext, body: Extract<BodyResult, { ok: false }>): void {
  if (body.tooLarge !== true) return sendInvalid(state, ctx, body.field ?? 'body', body.reason);
  const payload = JSON.stringify({
    error: { code: 'INVALID_REQUEST', message: `request body too large: ${body.reason}`, details: { field: 'body', reason: body.reason } },
    request_id: ctx.requestId,
  });
  ctx.res.once('finish', () => ctx.req.socket.destroy());
  sendBody(state, ctx, 413, payload, { headers: { connection: 'close' } });
}

/** Query string → first value of each name. */
export function parseQuery(q: string): Map<string, string> {
  const out = new Map<string, string>();
  if (q === '') return out;
  for (const part of q.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const k = decodeQueryPart(eq < 0 ? part : part.slice(0, eq));
    if (!out.has(k)) out.set(k, eq < 0 ? '' : decodeQueryPart(part.slice(eq + 1)));
  }
  return out;
}

function decodeQueryPart(s: string): string {
  if (!s.includes('%') && !s.includes('+')) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
