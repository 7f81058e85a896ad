/**
 * The request pipeline, in order: route; admin bypass; connection-reset and outage faults;
 * authentication and the rate limiter (for `/v1`; shapes other than fixed in `limiters.ts`);
 * unknown routes; injected errors and latency; then the handler. The hot path (`GET /v1/flows`)
 * allocates one context and no closures.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NS_PER_MS, NS_PER_S } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import { handleAdmin } from './admin.js';
import { getFlow, listFlows } from './handlers-flows.js';
import { getRun, runFlow, trigger } from './handlers-runs.js';
import { createSession, getHistory } from './handlers-sessions.js';
import { getUsage } from './handlers-usage.js';
import { finish, RequestContext, sendError } from './http.js';
import { admitOrWait, advertisedLimit, refusalReason, roomNow } from './limiters.js';
import { matchRoute } from './router.js';
import type { ServiceState, TokenState } from './state.js';

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const sp = header.indexOf(' ');
  if (sp !== 6 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  return header.slice(7).trim();
}

/** Last resort for a handler bug: answer 500 rather than leave the client hanging. */
function failed(state: ServiceState, ctx: RequestContext): void {
  if (!ctx.answered) sendError(state, ctx, 'INTERNAL_ERROR', 'internal server error', { reason: 'unexpected error in the reference service' });
}

/** Handles one request. */
export function handleRequest(state: ServiceState, req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const ctx = new RequestContext(req, res, state.clock.nowNs(), state.nextRequestId(), q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1));
  matchRoute(ctx, req.method ?? 'GET', ctx.path);
  if (ctx.area === 'admin') {
    handleAdmin(state, ctx).catch(() => failed(state, ctx));
    return;
  }
  const faults = state.faults;
  if (faults.active) {
    if (faults.resetConnection()) {
      state.stats.faults.connectionResets++;
      finish(state, ctx, 0);
      req.socket.destroy();
      return;
    }
    ctx.dropRateLimit = faults.dropRateLimitHeaders();
    const left = faults.outageRemainingNs(ctx.atNs);
    if (left >= 0) {
      ctx.tok = ctx.area === 'v1' ? state.tokens.get(bearerToken(req.headers.authorization) ?? '') : undefined;
      state.stats.faults.outageResponses++;
      const retryAfter = left === Infinity ? undefined : Math.ceil(left / NS_PER_S);
      return sendError(state, ctx, 'SERVICE_UNAVAILABLE', 'the service is temporarily unavailable', { reason: 'outage' }, { retryAfter });
    }
  }
  if (ctx.area === 'v1') {
    const token = bearerToken(req.headers.authorization);
    const tok = token === undefined ? undefined : state.tokens.get(token);
    if (tok === undefined) {
      const reason = token === undefined ? 'missing bearer token' : 'unknown token';
      return sendError(state, ctx, 'UNAUTHORIZED', 'invalid or missing API token', { reason });
    }
    ctx.tok = tok;
    if (!admit(state, ctx, tok)) return;
    if (ctx.route === 'unknown') return sendError(state, ctx, 'NOT_FOUND', 'no such route', { reason: `no route for ${req.method} ${ctx.path}` });
  } else if (ctx.route === 'unknown') {
    return sendError(state, ctx, 'NOT_FOUND', 'no such route', { reason: `no route for ${req.method} ${ctx.path}` });
  }
  if (faults.active) {
    const op = ctx.route as OpName;
    const status = faults.errorStatus(op);
    if (status !== 0) {
      state.stats.faults.injectedErrors++;
      const code = status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR';
      return sendError(state, ctx, code, status === 503 ? 'the service is temporarily unavailable' : 'internal server error', { reason: 'injected fault' });
    }
    const delayMs = faults.latencyMs(op);
    if (delayMs > 0) {
      state.stats.faults.delayed++;
      state.timers.set(ctx.atNs + delayMs * NS_PER_MS, () => safeDispatch(state, ctx));
      return;
    }
  }
  safeDispatch(state, ctx);
}

function safeDispatch(state: ServiceState, ctx: RequestContext): void {
  try {
    dispatch(state, ctx);
  } catch {
    failed(state, ctx);
  }
}

/** Counts the request in its token's window; answers 429 and returns false when over. */
function admit(state: ServiceState, ctx: RequestContext, tok: TokenState): boolean {
  if (state.opts.limiter.shape !== 'fixed') return admitShaped(state, ctx, tok);
  if (ctx.atNs >= tok.windowEndNs) {
    tok.count = 0;
    tok.arrived = 0;
    tok.windowEndNs = ctx.atNs + state.windowNs;
  }
  const before = tok.arrived++;
  const faults = state.faults;
  const premature = faults.active && faults.premature(tok.limit - tok.count);
  const enforced = faults.active ? faults.enforcedLimit(tok.limit) : tok.limit;
  if (!premature && tok.count < enforced) {
    tok.count++;
    return true;
  }
  if (premature) state.stats.faults.premature429++;
  else if (tok.count < tok.limit && before < tok.limit) throttled(state, ctx);
  else state.stats.rateLimited++;
  sendError(state, ctx, 'RATE_LIMITED', 'too many requests', { limit: tok.limit, reason: 'rate limit window used up' }, { retryAfter: 'window' });
  return false;
}

/** A refusal of `throttleAfter` although the advertised limit has room: counted, and its Remaining says 0. */
function throttled(state: ServiceState, ctx: RequestContext): void {
  state.stats.faults.throttled429++;
  ctx.throttled = true;
}

/** `admit` for the sliding and token-bucket shapes (see limiters.ts). */
function admitShaped(state: ServiceState, ctx: RequestContext, tok: TokenState): boolean {
  const faults = state.faults;
  const room = roomNow(state, tok, ctx.atNs);
  const limit = advertisedLimit(state, tok);
  const premature = faults.active && faults.premature(room);
  let retryAfter = 1; // a premature 429 has room now: the soonest whole second
  if (!premature) {
    retryAfter = admitOrWait(state, tok, ctx.atNs, faults.active ? faults.enforcedLimit(limit) : limit);
    if (retryAfter === 0) return true;
  }
  if (premature) state.stats.faults.premature429++;
  else if (room > 0) throttled(state, ctx);
  else state.stats.rateLimited++;
  const reason = refusalReason(state.opts.limiter.shape);
  sendError(state, ctx, 'RATE_LIMITED', 'too many requests', { limit, reason }, { retryAfter });
  return false;
}

function dispatch(state: ServiceState, ctx: RequestContext): void {
  switch (ctx.route) {
    case 'listFlows':
      return listFlows(state, ctx);
    case 'getFlow':
      return getFlow(state, ctx);
    case 'getRun':
      return getRun(state, ctx);
    case 'getHistory':
      return getHistory(state, ctx);
    case 'getUsage':
      return getUsage(state, ctx);
    case 'run':
      runFlow(state, ctx, false).catch(() => failed(state, ctx));
      return;
    case 'stream':
      runFlow(state, ctx, true).catch(() => failed(state, ctx));
      return;
    case 'createSession':
      createSession(state, ctx).catch(() => failed(state, ctx));
      return;
    case 'trigger':
      trigger(state, ctx).catch(() => failed(state, ctx));
      return;
    default:
      sendError(state, ctx, 'NOT_FOUND', 'no such route', {});
  }
}
