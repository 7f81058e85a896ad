/** `POST /sessions` and `GET /sessions/{id}/history`. */
import { ownedFlow } from './handlers-flows.js';
import { readJsonBody, sendBody, sendBodyProblem, sendError, sendInvalid, type RequestContext } from './http.js';
import { sessionJson } from './sessions.js';
import type { ServiceState } from './state.js';
import { isRecord } from './validate.js';

/** Default `user_id` when the body has none. */
export const ANONYMOUS_USER = 'anonymous';

/** `POST /sessions`: `flow_id` required; `user_id` and `metadata` optional. */
export async function createSession(state: ServiceState, ctx: RequestContext): Promise<void> {
  const body = await readJsonBody(ctx.req);
  if (!body.ok) return sendBodyProblem(state, ctx, body);
  if (!isRecord(body.value)) return sendInvalid(state, ctx, 'body', 'must be a JSON object');
  const b = body.value;
  if (b.flow_id === undefined) return sendInvalid(state, ctx, 'flow_id', 'is required');
  if (typeof b.flow_id !== 'string' || b.flow_id === '') return sendInvalid(state, ctx, 'flow_id', 'must be a non-empty string');
  if (b.user_id !== undefined && typeof b.user_id !== 'string') return sendInvalid(state, ctx, 'user_id', 'must be a string');
  if (b.metadata !== undefined && !isRecord(b.metadata)) return sendInvalid(state, ctx, 'metadata', 'must be an object');
  const flow = ownedFlow(state, ctx, b.flow_id);
  if (flow === undefined) return;
  const session = state.sessions.create(flow.account, flow.id, b.user_id ?? ANONYMOUS_USER, b.metadata ?? {}, state.clock.wallMs());
  state.stats.sessions++;
  const json = sessionJson(session);
  if (state.notifier.enabled) {
    const { id, ...rest } = json;
    state.notifier.emit('session.created', { session_id: id, ...rest });
  }
  sendBody(state, ctx, 200, JSON.stringify(json));
}

/** `GET /sessions/{id}/history`: every message, oldest first. */
export function getHistory(state: ServiceState, ctx: RequestContext): void {
  const session = state.sessions.get(ctx.param);
  if (session === undefined) {
    return sendError(state, ctx, 'NOT_FOUND', 'session not found', { field: 'session_id', reason: 'no session with this id' });
  }
  if (session.account !== ctx.tok?.account) {
    return sendError(state, ctx, 'FORBIDDEN', 'the token may not access this session', { field: 'session_id', reason: 'session belongs to another account' });
  }
  sendBody(state, ctx, 200, JSON.stringify({ session_id: session.id, messages: session.messages, total: session.messages.length }));
}
