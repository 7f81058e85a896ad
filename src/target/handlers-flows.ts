/** `GET /flows` and `GET /flows/{id}`, plus the ownership check shared by every flow route. */
import type { FlowRecord, FlowStatusFilter } from './catalogue.js';
import { parseQuery, sendBody, sendError, sendInvalid, type RequestContext } from './http.js';
import type { ServiceState } from './state.js';

/**
 * The flow `id` when the caller's account owns it. Otherwise answers 404 (unknown id) or
 * 403 (another account's flow) and returns undefined.
 */
export function ownedFlow(state: ServiceState, ctx: RequestContext, id: string, field = 'flow_id'): FlowRecord | undefined {
  const flow = state.catalogue.get(id);
  if (flow === undefined) {
    sendError(state, ctx, 'NOT_FOUND', 'flow not found', { field, reason: 'no flow with this id' });
    return undefined;
  }
  if (ctx.tok !== undefined && flow.account !== ctx.tok.account) {
    sendError(state, ctx, 'FORBIDDEN', 'the token may not access this flow', { field, reason: 'flow belongs to another account' });
    return undefined;
  }
  return flow;
}

/** Answers 400 for a draft flow (the interface runs published flows only). */
export function refuseDraft(state: ServiceState, ctx: RequestContext, flow: FlowRecord): boolean {
  if (flow.status === 'published') return false;
  sendError(state, ctx, 'INVALID_REQUEST', 'flow is not published', { field: 'flow_id', reason: 'flow is a draft; only published flows run' });
  return true;
}

const INT_RE = /^\d{1,9}$/;

/** `GET /flows?limit&offset&status`: the caller's flows, published ones unless `status=draft`. */
export function listFlows(state: ServiceState, ctx: RequestContext): void {
  let limit = 20;
  let offset = 0;
  let status: FlowStatusFilter = 'published';
  if (ctx.query !== '') {
    const q = parseQuery(ctx.query);
    const l = q.get('limit');
    if (l !== undefined) {
      limit = INT_RE.test(l) ? Number(l) : NaN;
      if (!(limit >= 1 && limit <= 100)) return sendInvalid(state, ctx, 'limit', 'must be an integer between 1 and 100');
    }
    const o = q.get('offset');
    if (o !== undefined) {
      if (!INT_RE.test(o)) return sendInvalid(state, ctx, 'offset', 'must be a non-negative integer');
      offset = Number(o);
    }
    const s = q.get('status');
    if (s !== undefined) {
      if (s !== 'published' && s !== 'draft') return sendInvalid(state, ctx, 'status', 'must be published or draft');
      status = s;
    }
  }
  sendBody(state, ctx, 200, state.catalogue.listBody((ctx.tok as { account: string }).account, status, limit, offset));
}

/** `GET /flows/{id}`: one flow with its config. */
export function getFlow(state: ServiceState, ctx: RequestContext): void {
  const flow = ownedFlow(state, ctx, ctx.param);
  if (flow !== undefined) sendBody(state, ctx, 200, state.catalogue.detailBody(flow));
}
